// Package kernel holds the raw process-level syscalls the harness needs and
// nothing else: pidfds (open, signal, wait), the audit login uid and session
// id, capability and no_new_privs changes for the calling thread, loading a
// precompiled seccomp filter, and reading /proc/N for session membership.
//
// Every function returns errors wrapped with os.NewSyscallError (or a
// "read /proc/N/...: ..." prefix), so callers can test them with errors.Is
// against unix.Errno values such as unix.EPERM and unix.ESRCH.
//
// The thread-scoped functions (SetLoginUID, DropCapability, SetNoNewPrivs,
// LoadSeccompFilter) act on the calling OS thread only: the harness shim
// calls them on its locked main thread right before execve, which keeps only
// that thread. Most need root (CAP_AUDIT_CONTROL, CAP_SETPCAP).
package kernel
