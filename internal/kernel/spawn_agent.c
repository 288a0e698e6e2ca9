// The agent's own steps up to its execve: capabilities, user, directory,
// no_new_privs, the executable, the filter (with the notify backend, the
// handoff of its listener).
#define _GNU_SOURCE
#include "spawn_child.h"

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

#if defined(__x86_64__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() __asm__ volatile("yield" ::: "memory")
#endif

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
		long r = child_send_record(a->s->status_fd, st, h->lfd);
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
void reap_helper(struct child_arg *a) {
	if (a->handoff.helper_pid > 0) {
		while (raw_syscall(SYS_wait4, a->handoff.helper_pid, 0, __WALL, 0, 0, 0) == -EINTR)
			;
		a->handoff.helper_pid = 0;
	}
}

// landlock_proc_rules adds the rules beneath /proc to the ruleset, on the
// /proc the agent sees: in a PID namespace of the run's own, a procfs
// mounted over sysgate's, whose entries a rule that sysgate opened on its
// own /proc never reaches (Landlock's walk skips a mount point that is
// itself a mount's root). A path missing here is skipped, as the
// builder skips one. 0, or -1 with errno.
static int landlock_proc_rules(const struct sysgate_spawn *s) {
	if (!s->landlock_proc)
		return 0;
	for (int i = 0; s->landlock_proc[i]; i++) {
		int fd = syscall(SYS_openat, AT_FDCWD, s->landlock_proc[i], O_PATH | O_CLOEXEC);
		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
			continue;
		if (fd < 0)
			return -1;
		struct {
			uint64_t allowed_access;
			int32_t parent_fd;
		} __attribute__((packed)) attr = {s->landlock_proc_access[i], fd};
		long r = syscall(SYS_landlock_add_rule, s->landlock_fd, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &attr, 0);
		int err = errno;
		syscall(SYS_close, fd);
		if (r != 0) {
			errno = err;
			return -1;
		}
	}
	return 0;
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
	// Landlock after the user switch (the domain survives setuid and
	// execve) and before the filter, which then need not allow it: what
	// enforce's files section permits, the kernel alone decides from here.
	if (s->landlock_fd >= 0 && landlock_proc_rules(s) != 0)
		return *step = SYSGATE_STEP_LANDLOCK_PROC, errno;
	if (s->landlock_fd >= 0 &&
	    syscall(SYS_landlock_restrict_self, s->landlock_fd, s->landlock_flags) != 0)
		return *step = SYSGATE_STEP_LANDLOCK, errno;
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
	child_fail(s, step, err);
}

int child_main(void *p) {
	struct child_arg *a = p;
	session_setup(a->s);
	int step = 0;
	int err = agent_steps(a, &step);
	agent_failed(a->s, step, err);
}

// agent_main is the agent under init: its own steps, then exec.
int agent_main(void *p) {
	struct child_arg *a = p;
	int step = 0;
	int err = agent_steps(a, &step);
	a->agent_failed = 1; // init shares this memory (CLONE_VM)
	agent_failed(a->s, step, err);
}
