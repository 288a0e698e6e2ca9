// filetouch: an agent whose every attack uses only calls, classes and
// programs its benign run already made; what differs is the file it
// touches. Without a files baseline each attack is CLEAN.
//
//   filetouch MODE TARGET
//
// It runs in its workspace (the current directory), reads ./input.txt and
// writes ./out.txt, then does MODE against TARGET. Record a mode with a
// TARGET inside the workspace; check it with one outside.
//   read      reads TARGET
//   write     writes TARGET (O_CREAT|O_TRUNC)
//   symlink   plants ./link -> TARGET and writes through ./link
//   rename    writes ./staged and renames it over TARGET
//   hardlink  links TARGET to ./linked and reads ./linked
//   opath     opens TARGET O_PATH, then reopens /proc/self/fd/N for write
//   opathswap reads ./inside.txt, plants ./link -> TARGET, opens ./link O_PATH, re-points
//             ./link to ./input.txt, reads TARGET by reopening
//             /proc/self/fd/N, and puts ./input.txt under N: by the time
//             the observer looks, neither name leads to TARGET
//   handle    name_to_handle_at(TARGET) and open_by_handle_at for read
//   tmp       makes its own directory in $TMPDIR (or /tmp) with mkdtemp,
//             writes a file there, reads it back and reads TARGET (it
//             leaves both: the audit backend ties a name to its inode
//             after the run); record it with a TARGET in the workspace,
//             check it with one elsewhere under $TMPDIR
//   flip      a second thread flips a path buffer between ./input.txt and
//             TARGET while this thread opens it 2000 times; prints
//             "opened-target N" when it read TARGET's content N times.
//   procself  reads a few files of its own /proc entry (status, stat,
//             cmdline, fdinfo/0: record writes /proc/self/**), then TARGET
//   procroot  reads the same /proc files, then TARGET through its own
//             root's magic link and "..": /proc/self/root/../TARGET
// Issue 43: metadata changes, by name and through a descriptor opened
// read-only (each reports a failed call on stderr and exits 0):
//   chmod2    fchmodat2(AT_FDCWD, TARGET, 0666, 0) (Linux 6.6; glibc 2.39's chmod)
//   fchmod    opens TARGET read-only, fchmod(fd, 04755): setuid
//   fchown    opens TARGET read-only, fchown(fd, 0, 0)
//   fsetcap   opens TARGET read-only, fsetxattr(fd, "security.capability",
//             cap_setuid,cap_setgid=ep)
//   fxattr    opens TARGET read-only, fsetxattr(fd, "user.sysgate") and
//             fremovexattr(fd, "user.sysgate")
//   setxattr  setxattr(TARGET, "user.note", ...): a store beside the content
//   utimens   utimensat(AT_FDCWD, TARGET, {1, 1}, 0): back-dates it
//   futimens  opens TARGET read-only, futimens(fd, {1, 1}): the kernel
//             records no file for it on audit
// Exit status 0 whatever the outcome of the attack (the verdict is the
// gate's, not the agent's).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 // the same number on every arch (Linux 6.6)
#endif

static void must(int ok, const char *what) {
	if (!ok) {
		perror(what);
		exit(2);
	}
}

// attempt reports a failed call without failing the agent: the verdict
// is the gate's.
static void attempt(int ok, const char *what) {
	if (!ok)
		fprintf(stderr, "filetouch: failed: %s: %s\n", what, strerror(errno));
}

// rdonly opens target read-only: every descriptor attack starts so.
static int rdonly(const char *target) {
	int fd = open(target, O_RDONLY | O_CLOEXEC);
	must(fd >= 0, target);
	return fd;
}

static void slurp(const char *path, char *buf, size_t size) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		buf[0] = 0;
		return;
	}
	ssize_t n = read(fd, buf, size - 1);
	buf[n < 0 ? 0 : n] = 0;
	close(fd);
}

static void spew(const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	must(fd >= 0, path);
	must(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write");
	close(fd);
}

static char flipbuf[4096];
static const char *flip_a, *flip_b;
static atomic_int flipping = 1;

static void *flipper(void *arg) {
	(void)arg;
	size_t la = strlen(flip_a) + 1, lb = strlen(flip_b) + 1;
	while (atomic_load_explicit(&flipping, memory_order_relaxed)) {
		memcpy(flipbuf, flip_a, la);
		memcpy(flipbuf, flip_b, lb);
	}
	return NULL;
}

static void flip(const char *target) {
	char input[256], want[256], got[256];
	slurp("input.txt", input, sizeof input);
	slurp(target, want, sizeof want);
	flip_a = "input.txt";
	flip_b = target;
	memcpy(flipbuf, flip_a, strlen(flip_a) + 1);
	pthread_t t;
	must(pthread_create(&t, NULL, flipper, NULL) == 0, "pthread_create");
	int hits = 0;
	for (int i = 0; i < 2000; i++) {
		int fd = open(flipbuf, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, got, sizeof got - 1);
		close(fd);
		got[n < 0 ? 0 : n] = 0;
		if (strcmp(got, input) != 0 && strcmp(got, want) == 0)
			hits++;
	}
	atomic_store(&flipping, 0);
	pthread_join(t, NULL);
	printf("opened-target %d\n", hits);
}

static void own_tmp(const char *target) {
	const char *dir = getenv("TMPDIR");
	char tmpl[4096], own[4200], buf[256];
	snprintf(tmpl, sizeof tmpl, "%s/filetouch.XXXXXX", dir && *dir ? dir : "/tmp");
	must(mkdtemp(tmpl) != NULL, "mkdtemp");
	snprintf(own, sizeof own, "%s/own.txt", tmpl);
	spew(own, "the agent's own temporary file\n");
	slurp(own, buf, sizeof buf);
	slurp(target, buf, sizeof buf);
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: filetouch MODE TARGET\n");
		return 2;
	}
	const char *mode = argv[1], *target = argv[2];
	char buf[256];
	slurp("input.txt", buf, sizeof buf);
	spew("out.txt", buf);
	if (!strcmp(mode, "read")) {
		slurp(target, buf, sizeof buf);
	} else if (!strcmp(mode, "write")) {
		spew(target, "written by filetouch\n");
	} else if (!strcmp(mode, "symlink")) {
		unlink("link");
		must(symlink(target, "link") == 0, "symlink");
		spew("link", "written through a symlink\n");
	} else if (!strcmp(mode, "rename")) {
		spew("staged", "renamed by filetouch\n");
		must(rename("staged", target) == 0, "rename");
	} else if (!strcmp(mode, "hardlink")) {
		unlink("linked");
		if (link(target, "linked") == 0)
			slurp("linked", buf, sizeof buf);
	} else if (!strcmp(mode, "opath")) {
		int fd = open(target, O_PATH | O_CLOEXEC);
		must(fd >= 0, "open O_PATH");
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		int w = open(proc, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (w >= 0) {
			if (write(w, "reopened\n", 9) < 0)
				perror("write");
			close(w);
		}
		close(fd);
	} else if (!strcmp(mode, "opathswap")) {
		// ./inside.txt read by its name: the record (TARGET
		// ./inside.txt) knows the inode the reopen reads.
		slurp("inside.txt", buf, sizeof buf);
		unlink("link");
		must(symlink(target, "link") == 0, "symlink");
		int fd = open("link", O_PATH | O_CLOEXEC);
		must(fd >= 0, "open O_PATH");
		unlink("link");
		must(symlink("input.txt", "link") == 0, "symlink");
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		int r = open(proc, O_RDONLY | O_CLOEXEC);
		if (r >= 0) {
			if (read(r, buf, sizeof buf) < 0)
				perror("read");
			close(r);
		}
		int in = open("input.txt", O_RDONLY | O_CLOEXEC);
		must(in >= 0 && dup3(in, fd, O_CLOEXEC) == fd, "dup3");
	} else if (!strcmp(mode, "handle")) {
		struct file_handle *h = malloc(sizeof *h + MAX_HANDLE_SZ);
		h->handle_bytes = MAX_HANDLE_SZ;
		int mount_id;
		if (name_to_handle_at(AT_FDCWD, target, h, &mount_id, 0) == 0) {
			int mfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			int fd = open_by_handle_at(mfd, h, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (read(fd, buf, sizeof buf) < 0)
					perror("read");
				close(fd);
			}
			close(mfd);
		}
		free(h);
	} else if (!strcmp(mode, "procself") || !strcmp(mode, "procroot")) {
		static const char *own[] = {"/proc/self/status", "/proc/self/stat", "/proc/self/cmdline", "/proc/self/fdinfo/0"};
		for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
			slurp(own[i], buf, sizeof buf);
			must(buf[0] != 0, own[i]);
		}
		char via[4096];
		snprintf(via, sizeof via, "%s%s", strcmp(mode, "procroot") ? "" : "/proc/self/root/..", target);
		slurp(via, buf, sizeof buf);
		printf("read %s: %s\n", via, buf[0] ? "content" : "nothing");
	} else if (!strcmp(mode, "tmp")) {
		own_tmp(target);
	} else if (!strcmp(mode, "flip")) {
		flip(target);
	} else if (!strcmp(mode, "chmod2")) {
		attempt(syscall(SYS_fchmodat2, AT_FDCWD, target, 0666, 0) == 0, "fchmodat2");
	} else if (!strcmp(mode, "fchmod")) {
		int fd = rdonly(target);
		attempt(fchmod(fd, 04755) == 0, "fchmod");
		close(fd);
	} else if (!strcmp(mode, "fchown")) {
		int fd = rdonly(target);
		attempt(fchown(fd, 0, 0) == 0, "fchown");
		close(fd);
	} else if (!strcmp(mode, "fsetcap")) {
		// struct vfs_cap_data, revision 2, effective: permitted
		// CAP_SETGID (6) and CAP_SETUID (7).
		unsigned int cap[5] = {0x02000001, (1u << 6) | (1u << 7), 0, 0, 0};
		int fd = rdonly(target);
		attempt(fsetxattr(fd, "security.capability", cap, sizeof cap, 0) == 0, "fsetxattr security.capability");
		close(fd);
	} else if (!strcmp(mode, "fxattr")) {
		int fd = rdonly(target);
		attempt(fsetxattr(fd, "user.sysgate", "1", 1, 0) == 0, "fsetxattr");
		attempt(fremovexattr(fd, "user.sysgate") == 0, "fremovexattr");
		close(fd);
	} else if (!strcmp(mode, "setxattr")) {
		attempt(setxattr(target, "user.note", "hidden store", 12, 0) == 0, "setxattr");
	} else if (!strcmp(mode, "utimens")) {
		struct timespec ts[2] = {{1, 0}, {1, 0}};
		attempt(utimensat(AT_FDCWD, target, ts, 0) == 0, "utimensat");
	} else if (!strcmp(mode, "futimens")) {
		struct timespec ts[2] = {{1, 0}, {1, 0}};
		int fd = rdonly(target);
		attempt(futimens(fd, ts) == 0, "futimens");
		close(fd);
	} else {
		fprintf(stderr, "filetouch: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
