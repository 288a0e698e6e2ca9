// Package gaps finds audit records that never reached sysgate's socket,
// by the serial numbers the kernel gives every record: a serial that stays
// missing longer than a grace period (records are queued slightly out of
// order) is declared lost, and the Tracker remembers the lost ranges so
// a run can be charged only for those between its own markers (LostIn)
// and a report can name them.
//
// A Tracker counts nothing until Start: a new multicast socket's first
// record is no valid origin (netlink_bind logs its own record, taking a
// serial, before the socket joins the group, and records are sent in
// queue order, not serial order, so serials above it may already have
// gone out). Start takes the serial of a marker record fired after the
// socket joined (the stream's first barrier sentinel): every serial above
// it was taken, so queued and sent, after the join.
//
// It is one of the three loss counters a run needs (with ENOBUFS on the
// socket and the kernel's status "lost" counter, which covers records
// dropped before they got a serial). It is pure bookkeeping: no
// privileges, no syscalls, safe for concurrent use.
package gaps
