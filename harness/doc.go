// Package harness runs an agent command under a seccomp filter compiled
// from a baseline, tracks its whole process tree, and turns the kernel's
// AUDIT_SECCOMP records into a verdict (a Result).
//
// Two backends see the calls outside the baseline. Audit (root): the
// filter returns LOG and the kernel's AUDIT_SECCOMP records are read over
// netlink. Notify (any user): the filter returns USER_NOTIF and a seccomp
// listener records and answers each call; it also names every exec
// (programs) and, under audit too, the calls whose arguments the classes
// need.
//
// The agent's first process gives itself a fresh audit session id
// (loginuid, root only), enters a mount namespace of its own with
// /proc/sys, /proc/sysrq-trigger and /sys read-only and the run's files
// bound read-only, removes FencedCapabilities (among them
// CAP_AUDIT_CONTROL, so nothing in the tree can leave that session) from
// all five capability sets, optionally switches user, sets no_new_privs
// and loads the precompiled filter with a raw seccomp(2) as its very last
// step before execve, so none of its own syscalls are logged. Each run
// has a PID namespace of its own: its init, running raw syscalls only
// (internal/kernel/spawn.c), does the session set-up, mounts the
// namespace's /proc, starts the agent as its CLONE_VM|CLONE_VFORK child
// and reaps; no second Go runtime starts. Without root, init starts in a
// user namespace of its own that maps the caller's uid and gid to
// themselves. The agent names no process outside its run, and killing
// init ends the whole run at once. Where the kernel refuses both, the
// agent runs without (a subreaper init under notify) and
// Result.IsolationUnavailable says why.
//
// The run's processes are exactly the processes whose audit session id is
// the run's: orphans and double-forked daemons included. After the agent
// exits the harness waits a grace period for them, then kills and reports
// what is left (Result.Leaked). Each run claims its session under
// /run/sysgate/sessions; if a harness dies mid-run, the next Run on the
// machine kills that orphaned tree.
//
// Run is steered only by its options: it reads no environment variables
// and imports no test framework. The Ginkgo and Gomega glue (matchers, the
// report entry) is ci/gatetest; record mode and observation output are
// WithMode and WithObservationFile, set by the edges (the CLI, the suites'
// gate helper).
//
// The audit backend needs root (CAP_AUDIT_CONTROL, CAP_SETPCAP,
// CAP_AUDIT_READ) on a kernel with audit and seccomp's LOG action; the
// notify backend needs Linux 5.8+ and no privilege; the mount fence needs
// mount_setattr (5.12+). The first Run makes the process non-dumpable. A
// Result is conclusive only when its Verdict is not "inconclusive": lost
// audit records, a failed barrier or a tree that could not be tracked are
// never reported as clean.
package harness
