// Package kernel is sysgate's one place of raw kernel access below the
// netlink socket (internal/auditnl owns that): small typed functions, by
// topic in files of their own:
//
//   - spawn.go, spawn.c: the vfork launcher of the agent's first process
//     (the Go side and the C parent side); its child side, raw syscalls
//     only, is spawn_child.h with spawn_session.c (stdio, audit session,
//     go-ahead), spawn_fence.c (mounts), spawn_agent.c (the agent's own
//     steps and the listener handoff), spawn_init.c (the run's init) and
//     spawn_report.c (status records); spawn_memory.go holds the C
//     memory the child reads; spawn_bind.go checks BindFiles and names
//     a failed one; spawn_probe.go asks the kernel, once, for the PID and
//     user namespaces a run can have; spawn_setup.go and spawn_status.go
//     hold what the launcher is given and reports, in plain Go;
//   - the launcher's cgo files build with linux && cgo only; without cgo
//     spawn_stub.go's Spawn and probes fail with ErrNotSupported, so the
//     package (and its importers) still build with CGO_ENABLED=0;
//   - seccomp.go: LoadSeccompFilter, the one seccomp(2) load of the Go
//     side (audit barrier sentinel, benchmark loader, ExecWithFilter), and
//     the barrier's getppid marker;
//   - caps.go, prctl.go, thread.go: capabilities, no_new_privs, thread
//     name, login uid and audit session, user switch;
//   - pidfd.go: pidfds (open, signal, wait);
//   - stat.go, procfs.go: the one /proc/N/stat parser, session members,
//     the last pid, load average, peak RSS, audit multicast sockets;
//   - sysctl.go, ns.go: sysctl read/write, the boot command line,
//     namespace inodes;
//   - flock.go, recvmmsg.go: flock and recvmmsg, retried on EINTR;
//   - addfd.go, fscred.go: what a supervisor needs to perform a held
//     call itself (SECCOMP_IOCTL_NOTIF_ADDFD then NOTIF_SEND, a value answer,
//     pidfd_getfd, openat2, a struct read from the caller's memory) and
//     a thread's own file credentials and umask.
//
// Every function returns errors wrapped with os.NewSyscallError (or a
// "read /proc/N/...:" / "read sysctl NAME:" prefix), so callers can test
// them with errors.Is against unix.Errno values such as unix.EPERM and
// unix.ESRCH, or fs.ErrNotExist.
//
// The thread-scoped functions (SetLoginUID, SetNoNewPrivs,
// SetThreadName, LoadSeccompFilter) act on the calling OS thread only: a
// caller locks its goroutine to the thread and lets the thread die or
// exec afterwards. Most need root (CAP_AUDIT_CONTROL, CAP_SETPCAP); the
// seccomp load needs no_new_privs or CAP_SYS_ADMIN.
package kernel
