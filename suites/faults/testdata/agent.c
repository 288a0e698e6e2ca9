// The fault suite's agent: one escape attempt per mode. Built static, so
// "vfork+exec of a static binary" execs this very file again.
//
//   agent MODE benign|escape [ARGS]
//
// "benign" runs the same machinery as "escape" without the escape syscall,
// so a baseline recorded from it holds everything but that one call: a
// check of "escape" must then report exactly the escape (sysinfo, or
// seccomp for the hiding mode). Exit status 0 means the mode ran as meant.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int escape;

// The new syscall every escape makes (raw, so libc adds nothing around it).
static void new_syscall(void) {
	struct sysinfo si;
	if (escape)
		syscall(SYS_sysinfo, &si);
}

static void pause_ms(long ms) {
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, 0);
}

static void on_sigchld(int sig) { (void)sig; }

static void *thread_main(void *arg) {
	(void)arg;
	new_syscall();
	// Outlive the main thread's pthread_join call, so it always waits on
	// a futex (in both modes).
	pause_ms(20);
	return 0;
}

// A SECCOMP_RET_ERRNO filter for sysinfo: it outranks LOG, and ERRNO is
// not logged without SECCOMP_FILTER_FLAG_LOG, so the call vanishes.
static struct sock_filter hide_sysinfo[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sysinfo, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
static struct sock_fprog hide_prog = {4, hide_sysinfo};

// ring_op runs one operation through a fresh io_uring (raw syscalls, no
// liburing): IORING_OP_SOCKET for an AF_INET stream socket when escaping
// (kernel 5.19+), IORING_OP_NOP otherwise. It returns the completion's
// result (the socket's fd, or 0), or -errno when a syscall failed.
static int ring_op(void) {
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int fd = syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_size = cq_size = sq_size > cq_size ? sq_size : cq_size;
	char *sq = mmap(0, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	char *cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP))
		cq = mmap(0, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -errno;
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
	unsigned idx = *tail & *(unsigned *)(sq + p.sq_off.ring_mask);
	struct io_uring_sqe *e = &sqes[idx];
	memset(e, 0, sizeof *e);
	e->opcode = IORING_OP_NOP;
	if (escape) {
		// liburing's io_uring_prep_socket: fd = domain, off = type,
		// len = protocol.
		e->opcode = IORING_OP_SOCKET;
		e->fd = AF_INET;
		e->off = SOCK_STREAM;
	}
	((unsigned *)(sq + p.sq_off.array))[idx] = idx;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, 0, 0) < 0)
		return -errno;
	unsigned head = __atomic_load_n((unsigned *)(cq + p.cq_off.head), __ATOMIC_ACQUIRE);
	struct io_uring_cqe *c = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (head & *(unsigned *)(cq + p.cq_off.ring_mask));
	int res = c->res;
	close(fd);
	return res;
}

// A filter that sends socket(2) to its own listener (the notifier mode).
static struct sock_filter notify_socket[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
static struct sock_fprog notify_prog = {4, notify_socket};
static struct sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
static struct sock_fprog allow_prog = {1, allow_all};

// answer_continue answers one notification on its listener (-1 in the
// benign run, where the same ioctls fail with EBADF) with CONTINUE: the
// kernel then runs the held syscall as if nothing had stopped it.
static void *answer_continue(void *arg) {
	int listener = (int)(long)arg;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	memset(&req, 0, sizeof req);
	memset(&resp, 0, sizeof resp);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0)
		resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 3)
		return 2;
	const char *mode = argv[1];
	escape = !strcmp(argv[2], "escape");

	if (!strcmp(mode, "fds")) {
		// Every descriptor the agent was started with, as "N -> TARGET",
		// before it opens anything of its own.
		char link[64], target[256];
		for (int fd = 0; fd < 65536; fd++) {
			if (fcntl(fd, F_GETFD) < 0)
				continue;
			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			ssize_t n = readlink(link, target, sizeof target - 1);
			target[n < 0 ? 0 : n] = 0;
			printf("%d -> %s\n", fd, target);
		}
		return 0;
	}
	if (!strcmp(mode, "leaf")) { // exec'd by vfork mode
		new_syscall();
		return 0;
	}
	if (!strcmp(mode, "daemon")) {
		// Double fork + setsid; the daemon makes its call only after the
		// agent's root has exited, with stdio closed like a real daemon.
		// The daemon reads a pipe whose write end the root holds: EOF
		// means the root has exited (a zombie has closed its files).
		int p[2];
		if (pipe(p))
			return 1;
		pid_t mid = fork();
		if (mid < 0)
			return 1;
		if (mid == 0) {
			setsid();
			if (fork() != 0)
				_exit(0);
			close(p[1]);
			close(0), close(1), close(2);
			char c;
			while (read(p[0], &c, 1) > 0)
				;
			new_syscall();
			_exit(0);
		}
		close(p[0]);
		return waitpid(mid, 0, 0) == mid ? 0 : 1;
	}
	if (!strcmp(mode, "inject")) {
		// Writes argv[4] and a newline into the stdin of process argv[3]
		// through /proc/PID/fd/0 (issue 22, hole 1): when that is a pipe
		// a shell outside the run reads commands from, the shell runs it.
		// Needs only openat and write. Prints what the open did.
		if (argc < 5)
			return 2;
		char path[64];
		snprintf(path, sizeof path, "/proc/%s/fd/0", argv[3]);
		int fd = open(path, O_WRONLY);
		printf("inject open %s: %s\n", path, fd < 0 ? strerror(errno) : "ok");
		if (fd >= 0) {
			dprintf(fd, "%s\n", argv[4]);
			close(fd);
		}
		new_syscall();
		return 0;
	}
	if (!strcmp(mode, "sigio")) {
		// Kills process argv[3] without kill(2) (issue 22, hole 2): the
		// owner of a pipe's read end set to it, the signal for "I/O
		// possible" set to SIGKILL, then a write. Prints what F_SETOWN did.
		if (argc < 4)
			return 2;
		int p[2];
		if (pipe(p) != 0)
			return 1;
		int rc = fcntl(p[0], F_SETOWN, atoi(argv[3]));
		printf("sigio F_SETOWN %s: %s\n", argv[3], rc < 0 ? strerror(errno) : "ok");
		fcntl(p[0], F_SETSIG, SIGKILL);
		fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK);
		if (write(p[1], "x", 1) != 1)
			return 1;
		new_syscall();
		return 0;
	}
	if (!strcmp(mode, "tiocsti")) {
		// Pushes a command line into the input of the terminal on fd 0
		// (issue 22): were that the caller's shell's terminal, the line
		// would run there after sysgate exits. Prints how many bytes the
		// kernel took; "escape" makes the new syscall too.
		const char *line = "echo sysgate-tiocsti\n";
		int pushed = 0;
		for (const char *c = line; *c; c++)
			if (ioctl(0, TIOCSTI, c) == 0)
				pushed++;
		new_syscall();
		printf("tiocsti pushed %d\n", pushed);
		fflush(stdout);
		return 0;
	}
	if (!strcmp(mode, "forkstorm")) {
		// Forks while its children's SIGCHLD arrive, to a handler without
		// SA_RESTART. Natively fork never fails with EINTR (the kernel
		// restarts it); a gate that holds forks for a listener made it do
		// so, and a shell said "Cannot fork". Exits 1 if any fork failed.
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sigchld;
		sigaction(SIGCHLD, &sa, 0);
		int failed = 0, eintr = 0;
		for (int i = 0; i < 2000; i++) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(0);
			if (pid < 0) {
				failed++;
				eintr += errno == EINTR;
				continue;
			}
			if (i % 2) // let some SIGCHLD find the next fork pending
				while (waitpid(-1, 0, WNOHANG) > 0)
					;
		}
		while (wait(0) > 0)
			;
		new_syscall();
		if (failed)
			fprintf(stderr, "forkstorm: %d of 2000 forks failed (%d with EINTR)\n", failed, eintr);
		return failed ? 1 : 0;
	}
	if (!strcmp(mode, "hop")) {
		// Fork-hopping (issue 12): the root exits at once; each generation
		// forks its successor and exits, for HOP_MS (default 1000) ms; the
		// last one opens an AF_INET socket. At no instant after the root's
		// exit need the tree be empty, but a walk of /proc can find it so.
		long ms = argc > 3 ? atol(argv[3]) : 1000;
		struct timespec start, now;
		clock_gettime(CLOCK_MONOTONIC, &start);
		for (;;) {
			pid_t pid = fork();
			if (pid < 0)
				return 1;
			if (pid > 0)
				_exit(0);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >= ms)
				break;
		}
		if (escape)
			syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
		_exit(0);
	}
	if (!strcmp(mode, "thread")) {
		pthread_t t;
		if (pthread_create(&t, 0, thread_main, 0))
			return 1;
		return pthread_join(t, 0) ? 1 : 0;
	}
	if (!strcmp(mode, "vfork")) {
		pid_t pid = vfork();
		if (pid == 0) {
			char *args[] = {"/proc/self/exe", "leaf", argv[2], 0};
			execv(args[0], args);
			_exit(127);
		}
		int st;
		return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
	}
	if (!strcmp(mode, "int80")) {
		// i386 getpid (20) through the compat entry of a 64-bit process.
		long ret = getpid();
		if (escape)
			__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		return ret == getpid() ? 0 : 1;
	}
	if (!strcmp(mode, "seccomp")) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			return 1;
		if (escape && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &hide_prog))
			return 1;
		struct sysinfo si;
		long r = syscall(SYS_sysinfo, &si);
		// escape: hidden and refused; benign: a plain call
		return escape ? !(r < 0 && errno == EPERM) : r != 0;
	}
	if (!strcmp(mode, "uring")) {
		// escape: an AF_INET socket through io_uring, where seccomp never
		// sees it; benign: a NOP through the same ring. A refused ring
		// (ENOSYS) makes it fall back to socket(2), as libraries do.
		int r = ring_op();
		if (r == -ENOSYS)
			return escape && syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) < 0;
		if (r < 0)
			return 1;
		// The socket (or nothing, benign) exists: F_GETFD proves it.
		if (escape && syscall(SYS_fcntl, r, F_GETFD) < 0)
			return 1;
		if (!escape)
			syscall(SYS_fcntl, 0, F_GETFD);
		return 0;
	}
	if (!strcmp(mode, "notifier")) {
		// escape: a filter of the agent's own sends socket(2) to its
		// listener, a thread answers CONTINUE, and the socket opens
		// unlogged (USER_NOTIF outranks LOG). benign installs a filter
		// without a listener and runs the same thread on no listener. A
		// refused listener makes it fall back to a plain socket(2); exit 5
		// says the refusal was not the gate's EPERM (the kernel's EBUSY,
		// say, for a second listener in one filter chain).
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			return 1;
		long listener = -1;
		if (escape) {
			listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &notify_prog);
			if (listener < 0) {
				int refused = errno;
				if (syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) < 0)
					return 1;
				return refused == EPERM ? 0 : 5;
			}
		} else if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &allow_prog)) {
			return 1;
		}
		pthread_t t;
		if (pthread_create(&t, 0, answer_continue, (void *)listener))
			return 1;
		long s = escape ? syscall(SYS_socket, AF_INET, SOCK_STREAM, 0) : 0;
		if (pthread_join(t, 0))
			return 1;
		return s < 0;
	}
	if (!strcmp(mode, "loginuid")) {
		// Try to leave the run's audit session; the escape writes the
		// loginuid, benign writes the same byte to /dev/null.
		int fd = open(escape ? "/proc/thread-self/loginuid" : "/dev/null", O_WRONLY);
		if (fd < 0)
			return 3;
		ssize_t n = write(fd, "0", 1);
		int denied = n < 0 && errno == EPERM;
		close(fd);
		new_syscall();
		if (escape)
			return denied ? 0 : 4; // 4: the rewrite worked
		return n == 1 ? 0 : 1;
	}
	if (!strcmp(mode, "observer")) {
		// A root agent reaching for the observer: open sysgate's memory
		// for writing and PTRACE_SEIZE it (our parent: sysgate, or the
		// init of the run's PID namespace, which shares its memory). benign does the same to a child of its own.
		// escape exits 0 when both were refused (EACCES/EPERM), else with
		// bit 8 (memory opened), 16 (seized), 32 (another error).
		pid_t child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			for (;;) // no syscall: whether it gets to make one would be a race
				__asm__ volatile("" ::: "memory");
		}
		pid_t parent = getppid(); // in both modes: the baseline holds it
		pid_t target = escape ? parent : child;
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/mem", (int)target);
		int status = 0;
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			status |= 8;
			close(fd);
		} else if (errno != EACCES && errno != EPERM) {
			status |= 32;
		}
		fprintf(stderr, "open %s for writing: %s\n", path, fd >= 0 ? "opened" : strerror(errno));
		long r = ptrace(PTRACE_SEIZE, target, 0, 0);
		if (r == 0)
			status |= 16; // we exit soon: the kernel detaches then
		else if (errno != EACCES && errno != EPERM)
			status |= 32;
		fprintf(stderr, "PTRACE_SEIZE %d: %s\n", (int)target, r == 0 ? "seized" : strerror(errno));
		kill(child, SIGKILL);
		waitpid(child, 0, 0);
		if (escape)
			return status;
		return status == (8 | 16) ? 0 : 1;
	}
	if (!strcmp(mode, "knobs")) {
		// A root agent writing kernel knobs that turn logging off or make
		// the kernel start a program outside the run. It writes back the
		// very value it read, so nothing on the machine changes even
		// where the write works. benign writes the value to /dev/null.
		// escape exits 0 when every write was refused, else with bit 8,
		// 16, 32 for the knob written, 64 for an unexpected error.
		static const char *knobs[] = {"/proc/sys/kernel/seccomp/actions_logged",
		                              "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe"};
		int status = 0;
		for (int i = 0; i < 3; i++) {
			char buf[4096];
			int fd = open(knobs[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0 && errno == ENOENT) {
				fprintf(stderr, "%s: absent\n", knobs[i]);
				continue;
			}
			ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf);
			if (fd >= 0)
				close(fd);
			if (n <= 0)
				return 1;
			const char *target = escape ? knobs[i] : "/dev/null";
			fd = open(target, O_WRONLY | O_CLOEXEC);
			ssize_t w = fd < 0 ? -1 : write(fd, buf, n);
			int err = errno;
			if (fd >= 0)
				close(fd);
			fprintf(stderr, "write %s: %s\n", target, w == n ? "written" : strerror(err));
			if (w == n)
				status |= 8 << i;
			else if (err != EACCES && err != EPERM && err != EROFS)
				status |= 64;
		}
		if (escape)
			return status;
		return status == (8 | 16 | 32) || status == (8 | 16) ? 0 : 1; // modprobe may be absent
	}
	if (!strcmp(mode, "blockdev")) {
		// A root agent makes a node DIR/d and reads from it: a FIFO when
		// benign, when escaping a block device of the machine's first disk
		// (the first line of /proc/partitions), whose raw blocks are past
		// every file rule. The same calls on the same paths either way;
		// only mknodat's mode differs. escape exits 0 when it made the
		// block device (whether its blocks then read depends on the
		// device cgroup: stderr says), 8 when mknodat was refused.
		if (argc < 4)
			return 2;
		char path[4096], line[256];
		unsigned maj = 0, min = 0;
		FILE *f = fopen("/proc/partitions", "re");
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, " %u %u", &maj, &min) == 2)
				break;
		if (f)
			fclose(f);
		snprintf(path, sizeof path, "%s/d", argv[3]);
		unlink(path);
		mode_t kind = escape ? S_IFBLK : S_IFIFO;
		if (syscall(SYS_mknodat, AT_FDCWD, path, kind | 0600, escape ? makedev(maj, min) : 0) < 0) {
			fprintf(stderr, "mknodat %s: %s\n", path, strerror(errno));
			return 8;
		}
		char buf[512];
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf);
		fprintf(stderr, "read %s (%u:%u): %zd bytes (%s)\n", path, maj, min, n, n < 0 ? strerror(errno) : "ok");
		if (fd >= 0)
			close(fd);
		unlink(path);
		if (escape)
			return 0;
		return n == 0 ? 0 : 1;
	}
	if (!strcmp(mode, "loop")) {
		// N logged calls (getppid) for the loss faults; with a fourth
		// argument, at most that many per millisecond, so a flood meant
		// for one reader does not also overrun the kernel's backlog for
		// every other run on the machine.
		long n = escape && argc > 3 ? atol(argv[3]) : 0;
		long per_ms = argc > 4 ? atol(argv[4]) : 0;
		for (long i = 0; i < n; i++) {
			syscall(SYS_getppid);
			if (per_ms > 0 && i % per_ms == per_ms - 1)
				pause_ms(1);
		}
		return 0;
	}
	if (!strcmp(mode, "noise")) {
		// Outside any run: log every syscall under our own filter and make
		// argv[3] getppid calls per millisecond until killed (the stress
		// suite's unrelated noise).
		static struct sock_filter log_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG)};
		static struct sock_fprog log_prog = {1, log_all};
		long per_ms = argc > 3 ? atol(argv[3]) : 10;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &log_prog))
			return 1;
		for (;;) {
			for (long i = 0; i < per_ms; i++)
				syscall(SYS_getppid);
			pause_ms(1);
		}
	}
	if (!strcmp(mode, "poison")) {
		// Finds its baseline in its parent's (sysgate's) command line,
		// the path after -b or -o, and appends a group that allows
		// socket and connect; argv[3], when given, is another name of
		// the same file to write through (a hard link). benign reads the
		// same and writes the group to /dev/null. It needs only openat,
		// read and write.
		char path[64], args[8192];
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, args, sizeof args - 1);
		if (n <= 0)
			return 1;
		close(fd);
		args[n] = 0;
		const char *target = 0;
		for (char *a = args; a < args + n; a += strlen(a) + 1) {
			if ((!strcmp(a, "-b") || !strcmp(a, "-o")) && a + strlen(a) + 1 < args + n) {
				target = a + strlen(a) + 1;
				break;
			}
		}
		if (!target)
			return 1;
		if (argc > 3)
			target = argv[3];
		static const char group[] = "groups:\n  poison:\n    reason: planted by the agent\n    syscalls:\n"
					    "      x86_64:\n        - connect\n        - socket\n";
		fd = open(escape ? target : "/dev/null", O_WRONLY | O_APPEND | O_CREAT, 0644);
		if (fd < 0 || write(fd, group, sizeof group - 1) != (ssize_t)(sizeof group - 1))
			return 1;
		close(fd);
		return 0;
	}
	if (!strcmp(mode, "hold")) {
		// Writes its pid to argv[3] (twice, as linger does), then reads
		// stdin to its end: the overlapping-runs spec ends each run by
		// closing it. benign and escape do the same.
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 1;
		fprintf(f, "%d %d\n", getpid(), getpid());
		fclose(f);
		char buf[64];
		while (read(0, buf, sizeof buf) > 0)
			;
		return 0;
	}
	if (!strcmp(mode, "linger")) {
		// Writes its pid and a child's to argv[3], then both sleep (for
		// the killed-harness fault). benign writes and exits.
		pid_t child = fork();
		if (child == 0) {
			for (;;)
				pause_ms(1000);
		}
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 1;
		fprintf(f, "%d %d\n", getpid(), child);
		fclose(f);
		pause_ms(1); // benign sleeps too: the baseline knows the sleep
		if (!escape) {
			kill(child, SIGKILL);
			waitpid(child, 0, 0);
			return 0;
		}
		for (;;)
			pause_ms(1000);
	}
	return 2;
}
