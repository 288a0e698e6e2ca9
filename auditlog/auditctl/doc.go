// Package auditctl is sysgate's control side of the kernel's audit:
// status requests (ReadStatus), the run tuning (AcquireTuning raises
// backlog_limit and lowers backlog_wait_time while any run on the machine
// is active, and restores them after the last one, or after a crash), the
// machine-wide lock and state files under StateDir (/run/sysgate) that
// coordinate every sysgate process, kernel.seccomp.actions_logged, and
// audit syscall rules (AddRules adds a run's rules after recording them
// in a state file, holds enabled=1 the way AcquireTuning holds the
// backlog, and deletes exactly those rules, never anyone else's;
// RecoverOwner and the next AddRules or AcquireTuning clean up after a
// crashed owner; audit locked at enabled=2 gives ErrLocked).
//
// Settled says what the kernel returns to once every holder on the
// machine lets go (the leak check of the tests); Stage marks the points
// where a fault build stops a holder to be killed.
//
// It also defines the environment errors of every audit package: a *Error
// names the problem and the exact fix, and matches one of ErrNotSupported,
// ErrPermission, ErrNamespace or ErrActionNotLogged with errors.Is.
// ClassifySocketErr turns the errno of an audit socket into them.
//
// Fault tests that change global settings (a dropping backlog, audit off,
// log not logged) take the runs lock exclusively through package
// auditctltest; every run holds it shared through AcquireTuning, so they
// never overlap. Tests that need records but are not runs hold
// AcquireTuning too.
//
// Needs: root, or CAP_AUDIT_CONTROL (status and settings, over a control
// netlink socket of its own) and write access to /run. Conclusive errors:
// none here; a failed AcquireTuning makes a run inconclusive, and the
// error says why.
package auditctl
