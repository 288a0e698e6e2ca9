// Package auditlog is sysgate's loss-aware consumer of the kernel's
// seccomp audit records (AUDIT_SECCOMP, type 1326).
//
// A Stream reads the audit multicast group (AUDIT_NLGRP_READLOG) over a
// netlink socket sysgate owns (package internal/auditnl, driven through
// go-libaudit's AuditClient) with a 64 MiB receive buffer. One goroutine
// only reads; another parses records (Parser, pure Go, tested from
// testdata/*.log captured on a real kernel) and routes them by audit
// session id to Subscriptions. Events of sessions nobody subscribed to are
// dropped before any allocation.
//
// Loss is counted three ways and fails closed: ENOBUFS on the socket,
// serial numbers that never arrive, and the kernel's status "lost"
// counter. Subscription.Close runs a Barrier (a sentinel thread of this
// process logs one marker syscall; its record arriving proves every
// earlier record arrived) and returns the Loss seen while subscribed: any
// loss, or an error, makes a run inconclusive.
//
// AcquireTuning raises the audit backlog for the duration of runs and
// restores it, coordinated across processes through /run/sysgate;
// ExclusiveKernel lets fault-forcing tests run alone. Preflight checks the
// environment for `sysgate doctor` and returns errors matching
// ErrNotSupported, ErrPermission, ErrNamespace or ErrActionNotLogged.
//
// Conclusive means: Subscription.Close returned a nil error and a Loss
// with Any() false. Every other outcome (an error from Open, Shared,
// AcquireTuning or Close, or any loss) leaves the run inconclusive; the
// error or Loss.String() says why. Loss is counted per socket and machine,
// not per run, so a loss marks every run open at the time.
//
// Tests that need records but are not runs hold AcquireTuning (so a
// fault-forcing test elsewhere waits); tests that force faults or make
// bursts large enough to overflow the kernel queue hold ExclusiveKernel.
//
// Needs: root, or CAP_AUDIT_READ (reading) and CAP_AUDIT_CONTROL (tuning),
// in the initial user and network namespace; kernel.seccomp.actions_logged
// must contain "log". The parser needs no privileges.
package auditlog
