// Package harness runs an agent command under a seccomp filter compiled
// from a baseline, tracks its whole process tree, and turns the kernel's
// AUDIT_SECCOMP records into a verdict (a Result).
//
// The agent's first process gives itself a fresh audit session id
// (loginuid), reports it so the harness subscribes before anything can be
// logged, enters a mount namespace of its own with /proc/sys,
// /proc/sysrq-trigger and /sys read-only, removes FencedCapabilities (among
// them CAP_AUDIT_CONTROL, so nothing in the tree can leave that session)
// from all five capability sets, optionally switches user, sets no_new_privs and loads the
// precompiled filter with a raw seccomp(2) as its very last step before
// execve, so none of its own syscalls are logged. Each run has a PID
// namespace of its own: its init, sharing this process's memory and
// running raw syscalls only (internal/kernel/spawn.c), does the session set-up, mounts
// the namespace's /proc, starts the agent as its CLONE_VM|CLONE_VFORK child
// and reaps; no second Go runtime starts. The agent names no process
// outside its run, and killing init ends the whole run at once. Where the
// kernel refuses the namespace, the agent is this process's own
// CLONE_VFORK child and Result.IsolationUnavailable says why.
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
// report entry) is harness/gatetest; record mode and observation output are
// WithMode and WithObservationFile, set by the edges (the CLI, the suites'
// gate helper).
//
// Needs root (CAP_AUDIT_CONTROL, CAP_SETPCAP, CAP_AUDIT_READ, CAP_SYS_ADMIN
// for the mount namespace) on a kernel with audit, seccomp's LOG action and
// mount_setattr (5.12+). The first Run makes the process non-dumpable. A Result is conclusive only when its
// Verdict is not "inconclusive": lost audit records, a failed barrier or a
// tree that could not be tracked are never reported as clean.
package harness
