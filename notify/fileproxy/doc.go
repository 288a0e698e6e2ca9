// Package fileproxy observes and gates the file calls of a run on the
// notify backend without a race: the supervisor performs each call
// itself and hands the result over, so the path it decides on is the
// path that is used.
//
// A filter that makes the calls of Syscalls notify holds each one; Serve
// reads its path arguments from the caller's memory once, looks them up
// as the kernel would for the caller (its cwd, its root, its dirfd taken
// over with pidfd_getfd, its /proc/self and /dev/fd translated to it),
// asks decide about the file the lookup reached, and then acts on that
// lookup with the caller's file credentials (fsuid, fsgid, groups and,
// in the supervisor's user namespace, effective capabilities) and umask,
// on a locked thread of its own. An open is answered with
// SECCOMP_IOCTL_NOTIF_ADDFD and then NOTIF_SEND with the new number
// (not SECCOMP_ADDFD_FLAG_SEND, which a signal to the proxy's thread
// can leave answered with 0: see kernel.NotifAddFDSend); other calls with their
// return value or errno. A second thread that rewrites the path buffer
// after the read changes nothing: the caller's memory is never read
// again. open_by_handle_at and name_to_handle_at are refused (EPERM)
// and reported.
//
// Needs: the filter loaded with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
// (kernel.InstallKillableListenerFilter; Linux 5.19+): without it a
// signal that reaches the caller after the proxy acted and before it
// answered restarts the call, which then runs twice (seen here: a FIFO
// open paired with the writer, then lost, hung the reader, 1 run in 15).
// Linux 5.9+ (ADDFD), 5.6+ (openat2, pidfd_getfd);
// ptrace access to the callers (their parent, or the same uid with
// ptrace_scope 0/1; root otherwise). No root: a supervisor that is not
// root can only act as its own uid, and refuses a caller of another
// (EACCES, with an error). A root supervisor takes the caller's uid,
// which clears its file capabilities; a caller in another user
// namespace gets none.
//
// Exact where the kernel's own lookup is: absolute names and absolute
// symlinks resolve in the caller's root (RESOLVE_IN_ROOT, so ".." stops
// there as it does for the caller), relative ones from its cwd or
// dirfd. Not exact:
//   - a name through the caller's own /proc entry (/proc/self/cwd/...,
//     /proc/self/root/...) is walked from the supervisor's root past
//     that entry, so an absolute symlink met after it, or ".." out of
//     it, resolves in the supervisor's root and /proc;
//   - a symlink elsewhere in a path that leads into a /proc magic link
//     (/proc/<pid>/fd/N, .../cwd, .../root) fails with ELOOP, and one
//     into the supervisor's own /proc entry with EACCES: followed from
//     here, /proc/self in it names the supervisor;
//   - a create through a dangling symlink is refused (EACCES) rather
//     than followed;
//   - O_PATH opens are decided, then continued (Access.Racy): the
//     kernel takes no O_PATH descriptor through ADDFD;
//   - only the native arch is served (handled=false for compat calls,
//     which the caller must then refuse or report as racy).
//
// Cost (BenchmarkOpen, loaded 2-core machine): a proxied open takes
// 0.14-0.23 ms against ~4 µs bare and ~13 µs held and continued; the
// caller's /proc status read (credentials, umask) is ~25 µs of it.
package fileproxy
