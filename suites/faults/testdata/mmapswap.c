// mmapswap: an agent that runs its helper, a script it may write, then
// rewrites the script in place through a MAP_SHARED mapping and runs it
// again. On tmpfs a write through a mapping changes neither the size
// nor the mtime nor the ctime, so a hash cached by those after the first
// run still matched the file.
//
//   mmapswap MODE HELPER
//
// HELPER says "benign" (e.g. "#!/bin/sh\necho benign\n"). MODE benign
// writes "benign" over itself; escape writes "escape" (same length).
// Each run of HELPER prints what it says. Exit status 0 whatever the
// outcome (the verdict is the gate's).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void must(int ok, const char *what) {
	if (!ok) {
		perror(what);
		exit(2);
	}
}

static void run(const char *helper) {
	pid_t pid = fork();
	must(pid >= 0, "fork");
	if (pid == 0) {
		execl(helper, helper, (char *)NULL);
		perror("execl");
		_exit(127);
	}
	int status;
	must(waitpid(pid, &status, 0) == pid, "waitpid");
}

int main(int argc, char **argv) {
	if (argc != 3 || (strcmp(argv[1], "benign") && strcmp(argv[1], "escape"))) {
		fprintf(stderr, "usage: mmapswap benign|escape HELPER\n");
		return 2;
	}
	const char *helper = argv[2];
	run(helper);
	int fd = open(helper, O_RDWR | O_CLOEXEC);
	must(fd >= 0, "open");
	struct stat st;
	must(fstat(fd, &st) == 0, "fstat");
	char *m = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	must(m != MAP_FAILED, "mmap");
	char *at = memmem(m, st.st_size, "benign", 6);
	must(at != NULL, "no \"benign\" in the helper");
	memcpy(at, argv[1], 6);
	must(munmap(m, st.st_size) == 0, "munmap");
	close(fd);
	run(helper);
	fflush(stdout);
	return 0;
}
