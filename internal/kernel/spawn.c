#define _GNU_SOURCE
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// The child side below (everything up to sysgate_spawn_run) may run beside
// the Go runtime in the same memory: the init of a run's PID namespace is
// a CLONE_VM child without CLONE_VFORK. It must not write glibc's errno,
// which is thread-local storage of the thread that cloned it. So its
// syscalls are raw, and errno there is child_errno, written only when a
// child-side call fails (two launches failing at the same instant could
// swap their errno values; nothing else shares it).
#if defined(__x86_64__)
static long raw_syscall(long n, long a, long b, long c, long d, long e, long f) {
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static long raw_syscall(long n, long a, long b, long c, long d, long e, long f) {
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
}
#else
#error "spawn.c: raw syscalls are written for x86_64 and aarch64"
#endif

static int child_errno;

static long child_syscall(long n, long a, long b, long c, long d, long e, long f) {
	long r = raw_syscall(n, a, b, c, d, e, f);
	if (r < 0 && r > -4096) {
		child_errno = (int)-r;
		return -1;
	}
	return r;
}

#define CHILD_SYSCALL(n, a, b, c, d, e, f, ...) \
	child_syscall((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define syscall(...) CHILD_SYSCALL(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)
#undef errno
#define errno child_errno

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#define SYSGATE_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

// The kernel's sigset is 8 bytes; glibc's sigset_t is larger.
#define KERNEL_SIGSET_SIZE 8
#define CHILD_STACK_SIZE (256 * 1024)

// Everything in the child is a raw syscall: it shares the parent's memory
// (CLONE_VM|CLONE_VFORK, on a stack of its own), so no malloc, no locks,
// no glibc wrapper with process-wide effects (setuid's thread broadcast).

static void report(int fd, int kind, int step, int err, uint32_t ses) {
	struct sysgate_status st = {kind, step, err, ses};
	syscall(SYS_write, fd, &st, sizeof st);
}

// send_record sends st with passfd attached (SCM_RIGHTS) on fd: the
// number of bytes sent, or -errno (it leaves child_errno alone, for the
// handoff helper, which runs beside the agent).
static long send_record(int fd, struct sysgate_status st, int passfd) {
	struct iovec iov = {&st, sizeof st};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = {0};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof ctl.buf;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	__builtin_memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	return raw_syscall(SYS_sendmsg, fd, (long)&msg, 0, 0, 0, 0);
}

// report_fd sends a record of kind with passfd attached.
static long report_fd(int fd, int kind, uint32_t ses, int passfd) {
	struct sysgate_status st = {kind, 0, 0, ses};
	long r = send_record(fd, st, passfd);
	if (r < 0) {
		child_errno = (int)-r;
		return -1;
	}
	return r;
}

static __attribute__((noreturn)) void fail(const struct sysgate_spawn *s, int step, int err) {
	report(s->status_fd, SYSGATE_STATUS_ERROR, step, err, 0);
	syscall(SYS_exit_group, 127);
	__builtin_unreachable();
}

// drop_caps removes every capability in mask from the bounding, ambient,
// inheritable, permitted and effective sets. The bounding set goes first:
// PR_CAPBSET_DROP needs CAP_SETPCAP, which is never in the mask.
static int drop_caps(uint64_t mask) {
	for (int cap = 0; cap < 64; cap++) {
		if (!(mask & (1ull << cap)))
			continue;
		if (syscall(SYS_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
			return -1;
		syscall(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0);
	}
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) != 0)
		return -1;
	for (int w = 0; w < 2; w++) {
		uint32_t bits = (uint32_t)(mask >> (32 * w));
		data[w].effective &= ~bits;
		data[w].permitted &= ~bits;
		data[w].inheritable &= ~bits;
	}
	return syscall(SYS_capset, &hdr, data);
}

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define SYSGATE_MOUNT_ATTR_RDONLY 0x00000001

struct sysgate_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// readonly makes path and every mount below it read-only in this mount
// namespace. It binds path onto itself first, so path is a mount of its
// own (the recursive attribute change then stays below path even where
// path was only a directory of a bigger mount), then sets
// MOUNT_ATTR_RDONLY on the whole subtree in one call (Linux 5.12+).
// optional: a missing path is fine (/proc/sysrq-trigger without
// CONFIG_MAGIC_SYSRQ).
static int readonly(const char *path, int optional) {
	if (syscall(SYS_mount, path, path, NULL, MS_BIND | MS_REC, NULL) != 0)
		return optional && errno == ENOENT ? 0 : -1;
	struct sysgate_mount_attr attr = {.attr_set = SYSGATE_MOUNT_ATTR_RDONLY};
	return syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof attr);
}

static size_t cstrlen(const char *p) {
	size_t n = 0;
	while (p[n])
		n++;
	return n;
}

// fence_knobs gives the child a mount namespace of its own in which the
// kernel's knobs are read-only: /proc/sys (core_pattern and modprobe are
// checked by uid, not by capability, so only a read-only mount stops a
// root agent), /proc/sysrq-trigger and /sys. / becomes a slave first, so
// nothing done here propagates back, while mounts made outside later still
// appear inside. Besides, sysgate's own directories are hidden and the
// run's files read-only; nothing else about the file system changes. Needs
// CAP_SYS_ADMIN, so it runs before the capabilities are dropped.
static void fence_knobs(const struct sysgate_spawn *s) {
	if (syscall(SYS_unshare, CLONE_NEWNS) != 0)
		fail(s, SYSGATE_STEP_MOUNT_NS, errno);
	if (syscall(SYS_mount, NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
		fail(s, SYSGATE_STEP_MOUNT_SLAVE, errno);
	// The run's own PID namespace gets a /proc of its own: the agent sees
	// its run's processes and nothing else (no /proc/<pid>/fd/0 of a
	// shell outside). First, so the read-only knobs below are this one's.
	if (s->pidns && syscall(SYS_mount, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		fail(s, SYSGATE_STEP_PROC, errno);
	if (readonly("/proc/sys", 0) != 0)
		fail(s, SYSGATE_STEP_RO_PROC_SYS, errno);
	if (readonly("/proc/sysrq-trigger", 1) != 0)
		fail(s, SYSGATE_STEP_RO_SYSRQ, errno);
	if (readonly("/sys", 0) != 0)
		fail(s, SYSGATE_STEP_RO_SYS, errno);
	// sysgate's own state (audit tuning, claims on runs) is out of sight
	// under an empty tmpfs, and the run's files (baselines, observation)
	// cannot be written through this namespace.
	for (const char *const *p = s->hide_dirs; p && *p; p++) {
		if (syscall(SYS_mount, "sysgate", *p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			    "size=4k,mode=0555") != 0 && errno != ENOENT)
			fail(s, SYSGATE_STEP_HIDE_DIR, errno);
	}
	for (const char *const *p = s->ro_paths; p && *p; p++) {
		if (readonly(*p, 1) != 0)
			fail(s, SYSGATE_STEP_RO_PATH, errno);
	}
}

// cloexec_from marks every descriptor from first up close-on-exec:
// close_range(CLOSE_RANGE_CLOEXEC) (Linux 5.11+) in one call, else one
// fcntl per descriptor up to the soft RLIMIT_NOFILE. Close-on-exec rather
// than closed: the status and control descriptors are needed until exec.
static int cloexec_from(unsigned int first, int loop) {
	if (!loop) {
		if (syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
			return 0;
		if (errno != ENOSYS && errno != EINVAL)
			return -1;
	}
	struct { uint64_t cur, max; } rl; // the kernel's struct rlimit64
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0)
		return -1;
	unsigned long end = rl.cur > 0x7fffffffUL ? 0x7fffffffUL : (unsigned long)rl.cur;
	for (unsigned long fd = first; fd < end; fd++) {
		if (syscall(SYS_fcntl, (int)fd, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF)
			return -1;
	}
	return 0;
}

// keep_fds makes keep_fds[i] the agent's fd 3+i and every other fd above
// 2 close-on-exec. Spawn moved every source, and the status and control
// descriptors, to 3+nkeep or above, so no dup3 here overwrites one.
static void keep_fds(const struct sysgate_spawn *s) {
	for (int i = 0; i < s->nkeep; i++) {
		int src = s->keep_fds[i], dst = 3 + i;
		if (src < 0) {
			syscall(SYS_fcntl, dst, F_SETFD, FD_CLOEXEC); // a gap: EBADF is fine
			continue;
		}
		if (syscall(SYS_dup3, src, dst, 0) < 0)
			fail(s, SYSGATE_STEP_KEEP_FDS, errno);
	}
	if (cloexec_from(3 + (unsigned int)s->nkeep, s->cloexec_loop) != 0)
		fail(s, SYSGATE_STEP_CLOSE_FDS, errno);
}

// session_setup is the part of the launch that the run's first process
// does: the agent itself, or with a PID namespace its init, whose children
// inherit it all (stdio, session, audit session, run filter, mounts).
static void session_setup(const struct sysgate_spawn *s) {
	// Go's handlers live in the shared memory: back to defaults before any
	// signal can be delivered here.
	unsigned long dfl[4] = {0}; // kernel struct sigaction: SIG_DFL, no flags, empty mask
	for (int sig = 1; sig <= 64; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, dfl, NULL, KERNEL_SIGSET_SIZE);
	}
	// The fd table is a copy of the parent's: drop our copy of the
	// go-ahead pipe's write end, or a parent killed before the go-ahead
	// leaves this child reading forever (holding the parent's open files,
	// /run/sysgate/runs.lock among them).
	if (s->control_peer_fd > 2)
		syscall(SYS_close, s->control_peer_fd);
	for (int fd = 0; fd < 3; fd++) {
		if (s->stdio[fd] != fd && syscall(SYS_dup3, s->stdio[fd], fd, 0) < 0)
			fail(s, SYSGATE_STEP_STDIO, errno);
		if (s->stdio[fd] == fd)
			syscall(SYS_fcntl, fd, F_SETFD, 0);
	}
	// Nothing above 2 reaches the agent unless the caller named it: an
	// inherited socket would let it send without socket() or connect().
	keep_fds(s);
	// No controlling terminal: the agent cannot open /dev/tty, push input
	// into the caller's shell (TIOCSTI) or get its job-control signals.
	if (s->new_session && syscall(SYS_setsid) < 0)
		fail(s, SYSGATE_STEP_SETSID, errno);
	// A terminal of its own (a pty sysgate relays): what it pushes into
	// its input with TIOCSTI it reads back itself.
	if (s->set_ctty && syscall(SYS_ioctl, 0, TIOCSCTTY, 0) < 0)
		fail(s, SYSGATE_STEP_CTTY, errno);
	uint32_t ses = 0;
	if (s->audit_session) {
		int fd = syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/loginuid", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_write, fd, s->loginuid, cstrlen(s->loginuid)) < 0)
			fail(s, SYSGATE_STEP_LOGINUID, errno);
		syscall(SYS_close, fd);
		char buf[16];
		fd = syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/sessionid", O_RDONLY | O_CLOEXEC);
		long n = fd < 0 ? -1 : syscall(SYS_read, fd, buf, sizeof buf);
		if (n <= 0)
			fail(s, SYSGATE_STEP_SESSION, errno);
		syscall(SYS_close, fd);
		for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
			ses = ses * 10 + (uint32_t)(buf[i] - '0');
	}
	if (s->listener_prog) {
		// The sentinel filter: it allows everything and exists for its
		// listener, which hangs up once every task of the run is reaped.
		// no_new_privs first, so this works without CAP_SYS_ADMIN too.
		if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			fail(s, SYSGATE_STEP_NO_NEW_PRIVS, errno);
		int lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, s->listener_prog);
		if (lfd < 0)
			fail(s, SYSGATE_STEP_LISTENER, errno);
		if (report_fd(s->status_fd, SYSGATE_STATUS_SES, ses, lfd) < 0)
			fail(s, SYSGATE_STEP_LISTENER, errno);
		syscall(SYS_close, lfd); // the harness holds it now; the agent never does
	} else {
		report(s->status_fd, SYSGATE_STATUS_SES, 0, 0, ses);
	}
	char go = 0;
	if (syscall(SYS_read, s->control_fd, &go, 1) != 1 || go != 'g')
		syscall(SYS_exit_group, 126); // the parent gave up
	// The order matters: the run filter (above) needed no_new_privs or
	// CAP_SYS_ADMIN; the mounts need CAP_SYS_ADMIN; the capabilities go
	// next, before the user switch (a uid change from root empties the
	// effective and permitted sets, but dropping the bounding set needs
	// CAP_SETPCAP, which only root has).
	if (s->fence)
		fence_knobs(s);
}

// The handoff of a notify filter's listener. The agent's first process
// loads the filter, and only then does the listener exist; but from then
// on every call it makes outside the baseline waits for an answer from
// the listener, which sysgate does not hold yet. So the listener goes to
// sysgate from a helper task that shares the agent's memory and
// descriptor table (CLONE_VM|CLONE_FILES) but was cloned before the
// filter was loaded and so never holds it. No rule of the filter lets any
// call through unheard: nothing the agent can reproduce after its execve
// (an instruction address, a descriptor number) opens a way past it.
enum {
	HANDOFF_WAIT = 0,    // the agent has not loaded the filter yet
	HANDOFF_LOADED = 1,  // the filter is loaded, its listener is lfd
	HANDOFF_ABANDON = 2, // the load failed: the helper just exits
	HANDOFF_SENT = 3,    // the helper sent the listener to sysgate
	HANDOFF_FAILED = 4,  // it could not: err
};

#define HELPER_STACK_SIZE (64 * 1024)

#if defined(__x86_64__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() __asm__ volatile("yield" ::: "memory")
#endif

struct handoff {
	int state; // HANDOFF_*, read and written with __atomic builtins
	int lfd;
	int err;
	int agent_pid;  // the agent's first process, for the helper's pidfd
	int helper_pid; // > 0 once the helper runs: its parent reaps it
	char *stack;    // the helper's, mapped by sysgate_spawn_run
};

struct child_arg {
	const struct sysgate_spawn *s;
	sigset_t oldmask;
	volatile int agent_failed; // with pidns: set by the agent before it exits on a failure
	// A step that failed once the filter was loaded: the agent cannot
	// report it (its calls wait for the listener, or fail once it is
	// gone), so whoever waits for it (init, or sysgate_spawn_run) does.
	volatile int late_step, late_err;
	struct handoff handoff;
};

// handoff_main is the helper: it waits until the agent has loaded the
// filter, sends its listener on the status socket (a descriptor of the
// table it shares with the agent), closes it there and exits. It runs no
// filter of the run, with every signal blocked, for microseconds.
static int handoff_main(void *p) {
	struct child_arg *a = p;
	struct handoff *h = &a->handoff;
	long pidfd = raw_syscall(SYS_pidfd_open, h->agent_pid, 0, 0, 0, 0, 0);
	int state;
	for (long i = 0; (state = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE)) == HANDOFF_WAIT; i++) {
		if (i < 4096) {
			raw_syscall(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
			continue;
		}
		// Slow: poll the agent's pidfd, so a killed agent does not leave
		// the helper spinning.
		struct { long sec, nsec; } ms = {0, 1000000};
		struct { int fd; short events, revents; } pfd = {(int)pidfd, 1 /* POLLIN */, 0};
		if (pidfd >= 0 && raw_syscall(SYS_ppoll, (long)&pfd, 1, (long)&ms, 0, 0, 0) > 0)
			raw_syscall(SYS_exit, 0, 0, 0, 0, 0, 0);
	}
	if (pidfd >= 0)
		raw_syscall(SYS_close, pidfd, 0, 0, 0, 0, 0);
	if (state == HANDOFF_LOADED) {
		struct sysgate_status st = {SYSGATE_STATUS_LISTENER, 0, 0, 0};
		long r = send_record(a->s->status_fd, st, h->lfd);
		// The agent never holds the listener: closed in the shared table.
		raw_syscall(SYS_close, h->lfd, 0, 0, 0, 0, 0);
		h->err = r < 0 ? (int)-r : 0;
		__atomic_store_n(&h->state, r < 0 ? HANDOFF_FAILED : HANDOFF_SENT, __ATOMIC_RELEASE);
	}
	raw_syscall(SYS_exit, 0, 0, 0, 0, 0, 0);
	return 0;
}

// reap_helper waits for the handoff helper, a child of the caller
// (CLONE_PARENT), if one ran: it is done within microseconds of the
// agent's execve, which waits for it.
static void reap_helper(struct child_arg *a) {
	if (a->handoff.helper_pid > 0) {
		while (raw_syscall(SYS_wait4, a->handoff.helper_pid, 0, __WALL, 0, 0, 0) == -EINTR)
			;
		a->handoff.helper_pid = 0;
	}
}

// agent_steps are the agent's own steps, from the capability drop to the
// execve; on failure they return the errno and set *step (-1: the filter
// was loaded, and a->late_step says which step failed).
static int agent_steps(struct child_arg *a, int *step) {
	const struct sysgate_spawn *s = a->s;
	if (drop_caps(s->cap_drop) != 0)
		return *step = SYSGATE_STEP_CAPS, errno;
	if (s->set_user) {
		if (syscall(SYS_setgroups, s->ngroups, s->groups) != 0 ||
		    syscall(SYS_setresgid, s->gid, s->gid, s->gid) != 0 ||
		    syscall(SYS_setresuid, s->uid, s->uid, s->uid) != 0)
			return *step = SYSGATE_STEP_USER, errno;
	}
	if (s->dir && syscall(SYS_chdir, s->dir) != 0)
		return *step = SYSGATE_STEP_CHDIR, errno;
	if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return *step = SYSGATE_STEP_NO_NEW_PRIVS, errno;
	const char *path = NULL;
	int err = ENOENT;
	for (const char *const *p = s->paths; *p; p++) {
		if (syscall(SYS_faccessat, AT_FDCWD, *p, X_OK) == 0) {
			path = *p;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			err = errno;
	}
	if (!path)
		return *step = SYSGATE_STEP_FIND, err;
	if (!s->notify) {
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &a->oldmask, NULL, KERNEL_SIGSET_SIZE);
		// The filter is the last step: only the execve below is logged.
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, s->seccomp_flags, s->prog) != 0)
			return *step = SYSGATE_STEP_SECCOMP, errno;
		syscall(SYS_execve, path, s->argv, s->envp);
		return *step = SYSGATE_STEP_EXEC, errno;
	}
	// The notify backend: the filter carries the run's listener, which
	// the helper sends to sysgate (see handoff_main). The helper is cloned
	// first, with every signal still blocked, and as the agent's sibling
	// (CLONE_PARENT): the program exec'd here never sees a child it did
	// not start. A held call ignores all but fatal signals once sysgate
	// has received it (Linux 5.19+; without it, EINTR).
	struct handoff *h = &a->handoff;
	h->agent_pid = syscall(SYS_getpid);
	int hpid = clone(handoff_main, h->stack + HELPER_STACK_SIZE, CLONE_VM | CLONE_FILES | CLONE_PARENT, a);
	if (hpid < 0) // glibc's clone reports in the shared thread's errno: read it at once
		return *step = SYSGATE_STEP_LISTENER, *__errno_location();
	h->helper_pid = hpid;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &a->oldmask, NULL, KERNEL_SIGSET_SIZE);
	unsigned int flags = s->seccomp_flags | SECCOMP_FILTER_FLAG_NEW_LISTENER | SYSGATE_FILTER_FLAG_WAIT_KILLABLE_RECV;
	int lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, s->prog);
	if (lfd < 0 && errno == EINVAL)
		lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags & ~SYSGATE_FILTER_FLAG_WAIT_KILLABLE_RECV, s->prog);
	if (lfd < 0) {
		__atomic_store_n(&h->state, HANDOFF_ABANDON, __ATOMIC_RELEASE);
		return *step = SYSGATE_STEP_SECCOMP, errno;
	}
	h->lfd = lfd;
	__atomic_store_n(&h->state, HANDOFF_LOADED, __ATOMIC_RELEASE);
	// Wait for the helper without a syscall (each would wait for the
	// listener): the agent's program runs only once sysgate holds it, so
	// it never gets to signal the helper before the handoff.
	int state;
	while ((state = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE)) == HANDOFF_LOADED)
		cpu_relax();
	if (state != HANDOFF_SENT) {
		a->late_step = SYSGATE_STEP_LISTENER, a->late_err = h->err;
		return *step = -1, h->err;
	}
	syscall(SYS_execve, path, s->argv, s->envp);
	a->late_step = SYSGATE_STEP_EXEC, a->late_err = errno;
	return *step = -1, errno;
}

// agent_failed reports a failed agent step, unless the filter was loaded
// (step -1: the waiting side reports a->late_step), and exits.
static __attribute__((noreturn)) void agent_failed(const struct sysgate_spawn *s, int step, int err) {
	if (step < 0) {
		// Under the filter even the exit may be held, or (listener gone)
		// fail with ENOSYS: then there is nothing left to try.
		for (;;) {
			syscall(SYS_exit_group, 127);
			syscall(SYS_exit, 127);
		}
	}
	fail(s, step, err);
}

static int child_main(void *p) {
	struct child_arg *a = p;
	session_setup(a->s);
	int step = 0;
	int err = agent_steps(a, &step);
	agent_failed(a->s, step, err);
}

// agent_main is the agent under init: its own steps, then exec.
static int agent_main(void *p) {
	struct child_arg *a = p;
	int step = 0;
	int err = agent_steps(a, &step);
	a->agent_failed = 1; // init shares this memory (CLONE_VM)
	agent_failed(a->s, step, err);
}

// close_all_but closes every descriptor except keep.
static void close_all_but(int keep) {
	if (keep > 0 && syscall(SYS_close_range, 0, keep - 1, 0) != 0)
		for (int fd = 0; fd < keep; fd++)
			syscall(SYS_close, fd);
	if (syscall(SYS_close_range, keep + 1, ~0U, 0) != 0) {
		struct { uint64_t cur, max; } rl;
		unsigned long end = syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 && rl.cur < 0x7fffffffUL ? rl.cur : 65536;
		for (unsigned long fd = keep + 1; fd < end; fd++)
			syscall(SYS_close, (int)fd);
	}
}

// init_main is pid 1 of the run's PID namespace: it shares sysgate's
// memory (CLONE_VM, not CLONE_VFORK) and runs raw syscalls only. It does the session set-up
// for the whole run, starts the agent as its child (pid 2, so the agent's
// own signal and reaping semantics are those of any process), reports it,
// then holds nothing open but the status socket and reaps until the
// namespace is empty. Killing it kills every process of the namespace at
// once, and no fork survives that: that is how a run ends after its grace.
// write_text writes the n bytes of text to the file at path.
static int write_text(const char *path, const char *text, size_t n) {
	int fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long w = syscall(SYS_write, fd, text, n);
	int err = errno;
	syscall(SYS_close, fd);
	errno = err;
	return w == (long)n ? 0 : -1;
}

// id_map is "ID ID 1\n" in buf: one id mapped to itself.
static size_t id_map(char *buf, uint32_t id) {
	char digits[10];
	int n = 0;
	do
		digits[n++] = (char)('0' + id % 10);
	while ((id /= 10) != 0);
	size_t len = 0;
	for (int twice = 0; twice < 2; twice++) {
		for (int i = n - 1; i >= 0; i--)
			buf[len++] = digits[i];
		buf[len++] = ' ';
	}
	buf[len++] = '1';
	buf[len++] = '\n';
	return len;
}

// map_self maps the caller's uid and gid to themselves in the user
// namespace this process is the first of (no privilege needed for one id
// of one's own). Its /proc files belong to it only while its memory is
// dumpable, so this process, which has memory of its own (no CLONE_VM),
// makes it dumpable, and leaves it so: sysgate reads the launcher's exec
// arguments from it (process_vm_readv), which a non-dumpable memory would
// refuse an unprivileged sysgate. The agent still cannot reach it: init
// holds every capability of the run's user namespace and the agent none,
// and ptrace access to a task with capabilities the caller lacks needs
// CAP_SYS_PTRACE there. Only processes of the uid outside the namespace
// (its owner) could, as they could the caller itself.
static int map_self(uint32_t uid, uint32_t gid) {
	char buf[32];
	if (syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		return -1;
	int r = write_text("/proc/self/setgroups", "deny", 4);
	if (r == 0)
		r = write_text("/proc/self/uid_map", buf, id_map(buf, uid));
	if (r == 0)
		r = write_text("/proc/self/gid_map", buf, id_map(buf, gid));
	return r;
}

static int init_main(void *p) {
	struct child_arg *a = p;
	const struct sysgate_spawn *s = a->s;
	if (s->userns && map_self(s->map_uid, s->map_gid) != 0)
		fail(s, SYSGATE_STEP_USERNS, errno);
	// Without a PID namespace of its own, init is the run's subreaper:
	// every orphan of the run becomes its child, so the run's processes
	// are init's descendants, whatever they double-fork.
	if (!s->pidns && syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		fail(s, SYSGATE_STEP_AGENT, errno);
	session_setup(s);
	char *stack = (char *)syscall(SYS_mmap, NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		fail(s, SYSGATE_STEP_AGENT, errno);
	int apidfd = -1;
	int apid = clone(agent_main, stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, a, &apidfd);
	if (apid < 0) // glibc's clone reports in the shared thread's errno: read it at once
		fail(s, SYSGATE_STEP_AGENT, *__errno_location());
	// The agent exec'd or exited: its stack, mapped in the memory init
	// shares with sysgate, goes back.
	syscall(SYS_munmap, stack, CHILD_STACK_SIZE);
	// The agent exec'd or failed (and reported why, unless the filter was
	// loaded: then init reports it). The handoff helper, if any, is done.
	reap_helper(a);
	if (a->agent_failed && a->late_step)
		report(s->status_fd, SYSGATE_STATUS_ERROR, a->late_step, a->late_err, 0);
	if (!a->agent_failed && report_fd(s->status_fd, SYSGATE_STATUS_AGENT, 0, apidfd) < 0) {
		syscall(SYS_kill, apid, SIGKILL);
		fail(s, SYSGATE_STEP_AGENT, errno);
	}
	// Nothing of the agent's stdio or of sysgate's stays open here: a
	// pipe must read EOF when the run's processes close it.
	close_all_but(s->status_fd);
	for (;;) {
		int st;
		long pid = syscall(SYS_wait4, -1, &st, __WALL, NULL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; // ECHILD: the namespace is empty
		}
		if (pid == apid)
			report(s->status_fd, SYSGATE_STATUS_EXIT, 0, st, 0);
	}
	syscall(SYS_exit_group, a->agent_failed ? 127 : 0);
	__builtin_unreachable();
}

// The parent side: glibc as usual.
#undef syscall
#undef errno
#define errno (*__errno_location())

// init_resources is what a running init uses of this process's memory: it
// shares it (CLONE_VM), so they stay until init is reaped.
struct init_resources {
	char *stack;
	struct child_arg a;
};

// helper_stack maps the handoff helper's stack for a notify launch.
static int helper_stack(const struct sysgate_spawn *s, struct child_arg *a) {
	if (!s->notify)
		return 0;
	a->handoff.stack = mmap(NULL, HELPER_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (a->handoff.stack == MAP_FAILED) {
		a->handoff.stack = NULL;
		return -errno;
	}
	return 0;
}

static void free_helper_stack(struct child_arg *a) {
	if (a->handoff.stack)
		munmap(a->handoff.stack, HELPER_STACK_SIZE);
}

int sysgate_spawn_run(const struct sysgate_spawn *s, int *pidfd, void **resources) {
	*resources = NULL;
	char *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	sigset_t all;
	sigfillset(&all);
	int pid, err;
	if (s->pidns || s->subreaper) {
		// init shares this memory (no page tables to copy, nothing
		// copied on write while the run goes on) and runs beside the Go
		// runtime: on a stack of its own, with every signal blocked,
		// reading only s and its own arguments, which outlive it.
		struct init_resources *r = calloc(1, sizeof *r);
		if (!r) {
			munmap(stack, CHILD_STACK_SIZE);
			return -ENOMEM;
		}
		r->stack = stack;
		r->a.s = s;
		if ((err = helper_stack(s, &r->a)) < 0) {
			munmap(stack, CHILD_STACK_SIZE);
			free(r);
			return err;
		}
		pthread_sigmask(SIG_SETMASK, &all, &r->a.oldmask);
		// In a user namespace of its own, init has memory of its own too
		// (see map_self): then it and the agent share that copy.
		int flags = s->userns ? CLONE_NEWUSER : CLONE_VM;
		pid = clone(init_main, stack + CHILD_STACK_SIZE, flags | (s->pidns ? CLONE_NEWPID : 0) | CLONE_PIDFD | SIGCHLD, &r->a, pidfd);
		err = errno;
		pthread_sigmask(SIG_SETMASK, &r->a.oldmask, NULL);
		if (pid < 0) {
			munmap(stack, CHILD_STACK_SIZE);
			free_helper_stack(&r->a);
			free(r);
			return -err;
		}
		*resources = r;
		return pid;
	}
	struct child_arg a = {.s = s};
	if ((err = helper_stack(s, &a)) < 0) {
		munmap(stack, CHILD_STACK_SIZE);
		return err;
	}
	pthread_sigmask(SIG_SETMASK, &all, &a.oldmask);
	// CLONE_VFORK: this thread sleeps until the child execs or exits; the
	// rest of the Go runtime keeps running and answers the child.
	pid = clone(child_main, stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &a, pidfd);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &a.oldmask, NULL);
	munmap(stack, CHILD_STACK_SIZE);
	if (pid >= 0) {
		// The handoff helper (our child: CLONE_PARENT) is done by now, and
		// a step that failed under the filter is ours to report.
		if (a.handoff.helper_pid > 0)
			while (waitpid(a.handoff.helper_pid, NULL, __WALL) < 0 && errno == EINTR)
				;
		if (a.late_step) {
			struct sysgate_status st = {SYSGATE_STATUS_ERROR, a.late_step, a.late_err, 0};
			if (write(s->status_fd, &st, sizeof st) < 0) {
				// The reader is gone: nobody is left to tell.
			}
		}
	}
	free_helper_stack(&a);
	return pid < 0 ? -err : pid;
}

void sysgate_spawn_free(void *resources) {
	struct init_resources *r = resources;
	if (!r)
		return;
	munmap(r->stack, CHILD_STACK_SIZE);
	free_helper_stack(&r->a);
	free(r);
}

static int probe_exit(void *p) {
	(void)p;
	syscall(SYS_exit_group, 0);
	return 0;
}

int sysgate_probe_pidns(void) {
	char *stack = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	int pid = clone(probe_exit, stack + 64 * 1024, CLONE_VM | CLONE_VFORK | CLONE_NEWPID | SIGCHLD, NULL);
	int err = errno;
	if (pid > 0)
		waitpid(pid, NULL, __WALL);
	munmap(stack, 64 * 1024);
	return pid < 0 ? -err : 0;
}

struct probe_ids {
	uint32_t uid, gid;
};

// probe_userns_main is init_main's set-up in miniature: map, a mount
// namespace, the PID namespace's own /proc. Its exit status is 0 or the
// errno of the step that failed.
static int probe_userns_main(void *p) {
	const struct probe_ids *ids = p;
	long r = map_self(ids->uid, ids->gid) == 0 ? 0 : -child_errno;
	if (r == 0)
		r = raw_syscall(SYS_unshare, CLONE_NEWNS, 0, 0, 0, 0, 0);
	if (r == 0)
		r = raw_syscall(SYS_mount, 0, (long)"/", 0, MS_REC | MS_SLAVE, 0, 0);
	if (r == 0)
		r = raw_syscall(SYS_mount, (long)"proc", (long)"/proc", (long)"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0, 0);
	raw_syscall(SYS_exit_group, -r, 0, 0, 0, 0, 0);
	return 0;
}

int sysgate_probe_userns(uint32_t uid, uint32_t gid) {
	char *stack = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	struct probe_ids ids = {uid, gid};
	int pid = clone(probe_userns_main, stack + 64 * 1024, CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD, &ids);
	int err = errno, status = 0;
	if (pid > 0)
		while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
			;
	munmap(stack, 64 * 1024);
	if (pid < 0)
		return -err;
	if (!WIFEXITED(status))
		return -EINVAL;
	return -WEXITSTATUS(status);
}

