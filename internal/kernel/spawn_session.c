// The session set-up of the run's first process: signals, stdio, kept
// descriptors, terminal, audit session, the sentinel filter, the go-ahead.
#define _GNU_SOURCE
#include "spawn_child.h"

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
			child_fail(s, SYSGATE_STEP_KEEP_FDS, errno);
	}
	if (cloexec_from(3 + (unsigned int)s->nkeep, s->cloexec_loop) != 0)
		child_fail(s, SYSGATE_STEP_CLOSE_FDS, errno);
}

// session_setup is the part of the launch that the run's first process
// does: the agent itself, or with a PID namespace its init, whose children
// inherit it all (stdio, session, audit session, run filter, mounts).
void session_setup(const struct sysgate_spawn *s) {
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
			child_fail(s, SYSGATE_STEP_STDIO, errno);
		if (s->stdio[fd] == fd)
			syscall(SYS_fcntl, fd, F_SETFD, 0);
	}
	// Nothing above 2 reaches the agent unless the caller named it: an
	// inherited socket would let it send without socket() or connect().
	keep_fds(s);
	// No controlling terminal: the agent cannot open /dev/tty, push input
	// into the caller's shell (TIOCSTI) or get its job-control signals.
	if (s->new_session && syscall(SYS_setsid) < 0)
		child_fail(s, SYSGATE_STEP_SETSID, errno);
	// A terminal of its own (a pty sysgate relays): what it pushes into
	// its input with TIOCSTI it reads back itself.
	if (s->set_ctty && syscall(SYS_ioctl, 0, TIOCSCTTY, 0) < 0)
		child_fail(s, SYSGATE_STEP_CTTY, errno);
	uint32_t ses = 0;
	if (s->audit_session) {
		int fd = syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/loginuid", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_write, fd, s->loginuid, cstrlen(s->loginuid)) < 0)
			child_fail(s, SYSGATE_STEP_LOGINUID, errno);
		syscall(SYS_close, fd);
		char buf[16];
		fd = syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/sessionid", O_RDONLY | O_CLOEXEC);
		long n = fd < 0 ? -1 : syscall(SYS_read, fd, buf, sizeof buf);
		if (n <= 0)
			child_fail(s, SYSGATE_STEP_SESSION, errno);
		syscall(SYS_close, fd);
		for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
			ses = ses * 10 + (uint32_t)(buf[i] - '0');
	}
	if (s->listener_prog) {
		// The sentinel filter: it allows everything and exists for its
		// listener, which hangs up once every task of the run is reaped.
		// no_new_privs first, so this works without CAP_SYS_ADMIN too.
		if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			child_fail(s, SYSGATE_STEP_NO_NEW_PRIVS, errno);
		int lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, s->listener_prog);
		if (lfd < 0)
			child_fail(s, SYSGATE_STEP_LISTENER, errno);
		if (child_report_fd(s->status_fd, SYSGATE_STATUS_SES, ses, lfd) < 0)
			child_fail(s, SYSGATE_STEP_LISTENER, errno);
		syscall(SYS_close, lfd); // the harness holds it now; the agent never does
	} else {
		child_report(s->status_fd, SYSGATE_STATUS_SES, 0, 0, ses);
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
