// Package gaps finds audit records that never reached sysgate's socket,
// by the serial numbers the kernel gives every record: a serial that stays
// missing longer than a grace period (records are queued slightly out of
// order) is declared lost, and the Tracker remembers the latest lost
// ranges so a report can name them.
//
// It is one of the three loss counters a run needs (with ENOBUFS on the
// socket and the kernel's status "lost" counter, which covers records
// dropped before they got a serial). It is pure bookkeeping: no
// privileges, no syscalls, safe for concurrent use.
package gaps
