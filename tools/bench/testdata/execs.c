// An exec-heavy workload: N times fork, execve PROGRAM (no arguments) in
// the child and wait for it; prints the mean nanoseconds per exec over
// the whole loop (fork + execve + the program's run + wait). The mean,
// not the fastest chunk as in micro.c: what an observed exec adds may be
// paid later (a watcher that polls the new process), and the mean keeps
// it. Built static, so the process makes few syscalls besides the loop:
//
//	execs PROGRAM N
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	const char *program = argv[1];
	long n = atol(argv[2]);
	if (n <= 0)
		return 2;
	char *args[] = {(char *)program, NULL};
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			execve(program, args, environ);
			_exit(127);
		}
		int status = 0;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "execs: %s failed (status %#x)\n", program, status);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
