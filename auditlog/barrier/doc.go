// Package barrier proves that every audit record emitted before a point in
// time has been received: a sentinel thread of this process logs one
// marker syscall under a seccomp filter of its own, and since the kernel
// queues records in order, the sentinel's record arriving means every
// earlier one arrived. The stream that reads the records (package
// auditlog) registers waiters, launches sentinels, recognises their
// records by the thread name (IsMarker) and reports them (Fired); this
// package keeps the bookkeeping exact for concurrent barriers and retries.
//
// LogOneSyscall builds the sentinel's filter (classic BPF, unit-tested in
// x/net/bpf's VM without privileges).
//
// Needs: loading the filter needs only no_new_privs on the sentinel's own
// thread, which dies with it; the record arrives only where audit records
// can be read at all (CAP_AUDIT_READ, initial namespaces) and only while
// kernel.seccomp.actions_logged contains "log". A sentinel that never
// arrives is the caller's timeout, never a pass.
package barrier
