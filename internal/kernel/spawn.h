// Spawning an agent without re-executing the Go binary: vfork, set up the
// audit session, privileges and filter in the child with raw syscalls, exec.
#include <stdint.h>

struct sysgate_spawn {
	const char *const *paths; // candidate executables, tried in order (NULL-terminated)
	char *const *argv;
	char *const *envp;
	const char *dir;          // NULL: stay
	const char *loginuid;     // decimal text written to /proc/thread-self/loginuid
	int set_user;
	uint32_t uid, gid;
	const uint32_t *groups;
	int ngroups;
	const void *prog;         // struct sock_fprog
	const void *listener_prog; // struct sock_fprog of the sentinel filter; NULL: none
	unsigned int seccomp_flags;
	int stdio[3];             // become fds 0, 1, 2
	int control_fd;           // the child reads the go-ahead byte here
	int control_peer_fd;      // the parent's write end of control_fd, closed first (<= 2: none)
	int status_fd;            // a unix socket the child reports on (close-on-exec)
	uint64_t cap_drop;        // capabilities (bit n: capability n) removed from all five sets
	const int *keep_fds;      // keep_fds[i] becomes fd 3+i (-1: none); every source is >= 3+nkeep
	int nkeep;                // every other fd above 2 is closed on exec
	int new_session;          // setsid(): a session of its own, no controlling terminal
	int set_ctty;             // then make fd 0 (a pty's terminal end) its controlling terminal
	const char *const *hide_dirs; // covered by an empty read-only tmpfs in the agent's mount namespace
	const char *const *ro_paths;  // bound read-only there (missing ones skipped)
	const char *const *binds;     // source, target pairs (NULL-terminated): each target shows its source, read-only
	int pidns;                // a PID namespace of the run's own, with a minimal init (see sysgate_spawn_run)
	int userns;               // with pidns: in a user namespace of its own mapping map_uid/map_gid to themselves (no privilege needed)
	uint32_t map_uid, map_gid;
	int subreaper;            // without pidns: the same init, in sysgate's PID namespace, as the run's subreaper
	int audit_session;        // write loginuid: a fresh audit session (needs CAP_AUDIT_CONTROL); else ses is 0
	int fence;                // the mount namespace with read-only knobs (needs CAP_SYS_ADMIN)
	int notify;               // load prog with a listener, sent as SYSGATE_STATUS_LISTENER before execve
	int cloexec_loop;         // tests: skip close_range, use the fallback loop
	int landlock_fd;          // a Landlock ruleset the agent restricts itself to, after no_new_privs (-1: none)
	uint32_t landlock_flags;  // landlock_restrict_self's flags (audit logging, ABI 7)
	const char *const *landlock_proc;   // paths beneath /proc (NULL-terminated): each gets a rule, opened in the agent's own view
	const uint64_t *landlock_proc_access; // the rights of landlock_proc[i]
	const char *root;         // with fence: the run's / (pivot_root), read-only; NULL: the host's
	const char *root_tmp;     // root's /tmp, a fresh tmpfs
	const char *const *root_binds; // source, target pairs (targets inside root): bound read-write, recursively
};

// A report from the child on status_fd. An error record of a step that
// works on files may carry their paths after it, in the same message, each
// ending in a NUL (at most SYSGATE_STATUS_PATHS_MAX bytes in all).
#define SYSGATE_STATUS_PATHS_MAX 8192
struct sysgate_status {
	int32_t kind;  // SYSGATE_STATUS_*
	int32_t step;  // SYSGATE_STEP_* that failed
	int32_t err;   // errno
	uint32_t ses;  // the fresh audit session id
};

enum {
	SYSGATE_STATUS_SES = 1,   // the session id (and the listener fd)
	SYSGATE_STATUS_ERROR = 2, // step failed with err
	SYSGATE_STATUS_AGENT = 3, // with pidns: the agent exec'd (its pidfd attached)
	SYSGATE_STATUS_EXIT = 4,  // with pidns: the agent was reaped; err is its wait status
	SYSGATE_STATUS_LISTENER = 5, // notify: the agent's filter is loaded (its listener attached)
};
enum {
	SYSGATE_STEP_STDIO = 1,
	SYSGATE_STEP_LOGINUID,
	SYSGATE_STEP_SESSION,
	SYSGATE_STEP_LISTENER,
	SYSGATE_STEP_GO_AHEAD,
	SYSGATE_STEP_CAPS,
	SYSGATE_STEP_USER,
	SYSGATE_STEP_CHDIR,
	SYSGATE_STEP_NO_NEW_PRIVS,
	SYSGATE_STEP_FIND,
	SYSGATE_STEP_SECCOMP,
	SYSGATE_STEP_EXEC,
	SYSGATE_STEP_MOUNT_NS,     // unshare(CLONE_NEWNS)
	SYSGATE_STEP_MOUNT_SLAVE,  // make / rslave
	SYSGATE_STEP_RO_PROC_SYS,  // /proc/sys read-only
	SYSGATE_STEP_RO_SYSRQ,     // /proc/sysrq-trigger read-only
	SYSGATE_STEP_RO_SYS,       // /sys read-only
	SYSGATE_STEP_KEEP_FDS,     // dup3 of a kept descriptor
	SYSGATE_STEP_CLOSE_FDS,    // every other fd above 2 close-on-exec
	SYSGATE_STEP_SETSID,       // setsid()
	SYSGATE_STEP_CTTY,         // ioctl(0, TIOCSCTTY)
	SYSGATE_STEP_HIDE_DIR,     // tmpfs over a directory of sysgate's
	SYSGATE_STEP_RO_PATH,      // a file of the run read-only
	SYSGATE_STEP_PROC,         // mount the PID namespace's own /proc
	SYSGATE_STEP_AGENT,        // init: start the agent
	SYSGATE_STEP_USERNS,       // init: map its own uid and gid in the run's user namespace
	SYSGATE_STEP_LANDLOCK,     // landlock_restrict_self (enforce's files section)
	SYSGATE_STEP_LANDLOCK_PROC, // a Landlock rule beneath the run's /proc (the record carries the path)
	SYSGATE_STEP_BIND_SOURCE,  // open a bound file's source (the record carries source and target)
	SYSGATE_STEP_BIND_TARGET,  // open its target (idem)
	SYSGATE_STEP_BIND_FILE,    // bind the source over the target, read-only (idem)
	SYSGATE_STEP_ROOT,         // make root a read-only mount of its own with a fresh /tmp
	SYSGATE_STEP_ROOT_BIND,    // bind a directory into root (the record carries source and target)
	SYSGATE_STEP_PIVOT_ROOT,   // pivot_root into root and detach the host's /
};

// sysgate_spawn_run starts the child. Without pidns it is the agent
// (clone with CLONE_VM|CLONE_VFORK): the call returns the child's pid once
// it has exec'd or exited. With pidns the child is the init of a new PID
// namespace (clone with CLONE_VM|CLONE_NEWPID, without CLONE_VFORK): the call
// returns at once; init sets up the run, starts the agent as its child
// and reaps until the namespace is empty. init shares this process's
// memory: s and *resources must stay until init has been reaped, then
// sysgate_spawn_free(*resources). -errno if the clone failed. *pidfd
// receives a pidfd of the child.
int sysgate_spawn_run(const struct sysgate_spawn *s, int *pidfd, void **resources);
void sysgate_spawn_free(void *resources);

// sysgate_probe_pidns starts and reaps a child in a new PID namespace:
// 0 when that works here, else -errno.
int sysgate_probe_pidns(void);

// sysgate_probe_userns starts and reaps a child in a new user and PID
// namespace that maps uid and gid to themselves and mounts its own /proc,
// as an unprivileged run's init does: 0 when that works here, else
// -errno of the first step that failed.
int sysgate_probe_userns(uint32_t uid, uint32_t gid);
