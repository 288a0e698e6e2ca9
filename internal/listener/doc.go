// Package listener holds the seccomp listener that every process of a run
// shares, and answers two questions with it: is the run over, and (for
// callers that make some syscalls notify) what did a process ask for.
//
// The launcher's child installs a filter with
// SECCOMP_FILTER_FLAG_NEW_LISTENER before anything of the agent runs and
// hands the listener fd to the harness (SCM_RIGHTS). Seccomp filters are
// inherited across fork, clone and exec, and cannot be removed, so the
// tasks holding that filter are exactly the run's members: the listener
// polls POLLHUP once the last of them has been reaped, however the tree
// forked, double-forked or re-parented itself on the way. (On 6.18 here a
// task drops its filter as it exits, so an unreaped zombie does not keep
// the listener open; kernels that drop it only at reaping need init or a
// subreaper to reap orphans.)
//
// Needs Linux 5.8+ for POLLHUP on the listener (Supported probes it), and
// no privilege: the child installing the filter needs no_new_privs or
// CAP_SYS_ADMIN. A filter tree takes one listener only, so an agent under
// sysgate that asks for a listener of its own gets EBUSY.
package listener
