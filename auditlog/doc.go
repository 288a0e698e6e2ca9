// Package auditlog is sysgate's loss-aware consumer of the kernel's
// seccomp audit records (AUDIT_SECCOMP, type 1326): the Stream that reads
// them and the Subscriptions that route them to runs. It ties together
// the parts below it:
//
//   - record: the pure parser (record text to SeccompEvent);
//   - gaps: serial numbers that never arrived;
//   - barrier: the sentinel that proves every earlier record arrived;
//   - auditctl: audit status, run tuning, the machine-wide locks, and the
//     environment errors (auditctl.ErrPermission, ...);
//   - preflight (above this package): `sysgate doctor`.
//
// A Stream reads the audit multicast group (AUDIT_NLGRP_READLOG) over a
// netlink socket sysgate owns (package internal/auditnl, driven through
// go-libaudit's AuditClient) with a 64 MiB receive buffer. One goroutine
// only reads; another decodes records and routes them by audit session id
// to Subscriptions. Events of sessions nobody subscribed to are dropped
// before any allocation. SubscribeSyscallRecords routes the records of
// audited syscalls (SYSCALL and the PATH, CWD, SOCKADDR, ... records of
// the same serial) by login uid instead, for package touch.
//
// Loss is counted three ways and fails closed: ENOBUFS on the socket,
// serial numbers that never arrive, and the kernel's status "lost"
// counter. Subscription.Close runs a barrier and returns the Loss seen
// while subscribed. Serials are counted from a marker fired after the
// socket joined (never from its first record, see package gaps), and a
// run is charged only for those between its start marker (fired by
// Subscribe) and its end barrier; a seccomp record the parser rejects
// is charged to the runs of its audit session, or to every open run when
// its session id does not read.
//
// Conclusive means: Subscription.Close returned a nil error and a Loss
// with Any() false. Every other outcome (an error from Open, Shared,
// auditctl.AcquireTuning or Close, or any loss) leaves the run
// inconclusive; the error or Loss.String() says why. ENOBUFS and the
// kernel's counter are the socket's and the machine's, not the run's,
// so they mark every run open at the time. A barrier that times out matches ErrBarrierTimeout (joined with
// auditctl.ErrActionNotLogged when that is the reason); a closed stream
// gives ErrClosed.
//
// A run holds auditctl.AcquireTuning while it is subscribed; tests that
// force faults or make bursts large enough to overflow the kernel queue
// hold auditctltest.ExclusiveKernel.
//
// Needs: root, or CAP_AUDIT_READ in the initial user and network
// namespace; kernel.seccomp.actions_logged must contain "log" (Open
// errors match auditctl's sentinels).
package auditlog
