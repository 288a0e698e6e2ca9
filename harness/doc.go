// Package harness runs an agent command under a seccomp filter compiled
// from a baseline, tracks its whole process tree, and turns the kernel's
// AUDIT_SECCOMP records into a verdict (a Result).
//
// The agent is started through a shim: the current binary re-executed with
// SYSGATE_SHIM set, which this package's init() detects. Every binary that
// imports harness can therefore launch agents: the sysgate CLI, go test
// binaries and Ginkgo suites. The shim gives the agent a fresh audit
// session id (loginuid), removes CAP_AUDIT_CONTROL so nothing in the tree
// can leave that session, sets no_new_privs and loads the filter as its
// very last step before execve, so none of its own syscalls are logged.
//
// The run's processes are exactly the processes whose audit session id is
// the run's: orphans and double-forked daemons included. After the agent
// exits the harness waits a grace period for them, then kills and reports
// what is left (Result.Leaked).
//
// Needs root (CAP_AUDIT_CONTROL, CAP_SETPCAP, CAP_AUDIT_READ) on a kernel
// with audit and seccomp's LOG action. A Result is conclusive only when its
// Verdict is not "inconclusive": lost audit records, a failed barrier or a
// tree that could not be tracked are never reported as clean.
package harness
