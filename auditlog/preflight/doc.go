// Package preflight is `sysgate doctor`: Run checks, one by one, that this
// process can observe seccomp LOG records (seccomp's LOG action, the boot
// command line, kernel.seccomp.actions_logged, CAP_AUDIT_READ and
// CAP_AUDIT_CONTROL, the initial user and network namespace, the audit
// status, rate limit, backlog, run tuning and audit daemon) and ends with
// a real sentinel record through a stream of its own (package auditlog).
//
// Needs: nothing to run; every missing privilege is a finding. The error
// joins an *auditctl.Error per failed check, matching
// auditctl.ErrNotSupported, ErrPermission, ErrNamespace or
// ErrActionNotLogged; a nil error means runs of the audit backend on this
// machine can be conclusive (the notify backend needs only the seccomp
// listener check; sysgate doctor judges the backends). Warnings (a rate limit, a hold queue, a small receive
// buffer) pass but say what may make a run inconclusive.
package preflight
