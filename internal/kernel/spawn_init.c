// The init of a run's PID namespace (or, without one, the run's
// subreaper), and the user namespace map it writes for itself.
#define _GNU_SOURCE
#include "spawn_child.h"

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
int map_self(uint32_t uid, uint32_t gid) {
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

// init_main is pid 1 of the run's PID namespace: it shares sysgate's
// memory (CLONE_VM, not CLONE_VFORK) and runs raw syscalls only. It does the session set-up
// for the whole run, starts the agent as its child (pid 2, so the agent's
// own signal and reaping semantics are those of any process), reports it,
// then holds nothing open but the status socket and reaps until the
// namespace is empty. Killing it kills every process of the namespace at
// once, and no fork survives that: that is how a run ends after its grace.
int init_main(void *p) {
	struct child_arg *a = p;
	const struct sysgate_spawn *s = a->s;
	if (s->userns && map_self(s->map_uid, s->map_gid) != 0)
		child_fail(s, SYSGATE_STEP_USERNS, errno);
	// Without a PID namespace of its own, init is the run's subreaper:
	// every orphan of the run becomes its child, so the run's processes
	// are init's descendants, whatever they double-fork.
	if (!s->pidns && syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		child_fail(s, SYSGATE_STEP_AGENT, errno);
	session_setup(s);
	char *stack = (char *)syscall(SYS_mmap, NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		child_fail(s, SYSGATE_STEP_AGENT, errno);
	int apidfd = -1;
	int apid = clone(agent_main, stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, a, &apidfd);
	if (apid < 0) // glibc's clone reports in the shared thread's errno: read it at once
		child_fail(s, SYSGATE_STEP_AGENT, *__errno_location());
	// The agent exec'd or exited: its stack, mapped in the memory init
	// shares with sysgate, goes back.
	syscall(SYS_munmap, stack, CHILD_STACK_SIZE);
	// The agent exec'd or failed (and reported why, unless the filter was
	// loaded: then init reports it). The handoff helper, if any, is done.
	reap_helper(a);
	if (a->agent_failed && a->late_step)
		child_report(s->status_fd, SYSGATE_STATUS_ERROR, a->late_step, a->late_err, 0);
	if (!a->agent_failed && child_report_fd(s->status_fd, SYSGATE_STATUS_AGENT, 0, apidfd) < 0) {
		syscall(SYS_kill, apid, SIGKILL);
		child_fail(s, SYSGATE_STEP_AGENT, errno);
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
			child_report(s->status_fd, SYSGATE_STATUS_EXIT, 0, st, 0);
	}
	syscall(SYS_exit_group, a->agent_failed ? 127 : 0);
	__builtin_unreachable();
}

// probe_userns_main is init_main's set-up in miniature: map, a mount
// namespace, the PID namespace's own /proc. Its exit status is 0 or the
// errno of the step that failed.
int probe_userns_main(void *p) {
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
