// Package touch observes what a run's processes touch, race-free, on the
// audit backend: the paths the kernel resolved for their file calls and
// the addresses it copied for their socket calls, from the kernel's
// audit syscall records, never from the caller's memory (which a second
// thread can change between a read and the kernel's copy).
//
// The pieces, in the order a run uses them:
//
//   - NewAUID draws a login uid for the run; the launcher writes it to
//     /proc/thread-self/loginuid before the agent starts (which also
//     gives the run a fresh audit session), and the agent cannot change
//     it (CAP_AUDIT_CONTROL is fenced). Rules are scoped by it (-F auid:
//     go-libaudit's rule builder has no sessionid field). Two runs that
//     drew the same value would share rules, which costs only records to
//     filter: Install reports the collision (auditctl.ErrRuleExists) and
//     attribution is by session anyway.
//   - Rules builds the exit rules (go-libaudit rule/flags.Parse and
//     rule.Build), per arch one for each set, key sysgate-AUID. Files:
//     the calls of the one table both backends watch (internal/filecalls:
//     opens, creates, removes, renames, links, the mode, owner, xattr
//     and times changes by name and through a descriptor, execs, the
//     file-handle calls; calls an arch lacks are left out: aarch64 has
//     only the *at forms), successful calls
//     only (-F success=1: failed lookups are noise, an interpreter probes
//     hundreds of missing paths). Network: connect, bind, listen, sendto,
//     sendmsg, sendmmsg and the 32-bit socketcall(2) (a SOCKADDR record
//     when the call carries an address), whatever they returned: a
//     non-blocking connect fails with EINPROGRESS on its way out, and a
//     refusal is enforce's to report (Event.Errno says which).
//   - Install adds them (auditctl.AddRules: a state file first, audit
//     enabled=1 held like the backlog tuning, only these rules deleted
//     by Remove) and starts a watchdog: this binary re-executed with
//     argv[0] "sysgate-touch-watchdog" (an init function in this package
//     runs it instead of main), holding the read end of a pipe only the
//     owner can write. When the owner dies, even by SIGKILL, the pipe
//     closes and the watchdog removes the rules and restores enabled and
//     the backlog (auditctl.RecoverOwner); the next run on the machine
//     does the same for any owner whose watchdog died too.
//   - Observe subscribes to the run's records on an auditlog.Stream (by
//     auid) and reassembles them (a parser of its own, held by
//     differential tests to what go-libaudit's auparse + Reassembler gave) into
//     Events: SYSCALL with its CWD, PATH, SOCKADDR and OPENAT2 records.
//   - Event.FileAccesses maps an event to reads, writes, execs and
//     deletes by the call's semantics; ResolvedAccesses ties each to the
//     file the kernel reached (a write through ws/link -> ~/.bashrc is a
//     write of ~/.bashrc), or marks it Unverified.
//   - Dirs places names relative to a directory descriptor (unlinkat(fd,
//     "f") as fts and tar make them) from the run's records once they
//     are all in: the PARENT item's inode is the directory the kernel
//     used, and the run's records give that inode its path (see Dirs for
//     what it refuses).
//
// Needs: root (CAP_AUDIT_CONTROL for rules and enabled, CAP_AUDIT_READ
// for the stream), audit not locked (enabled=2 gives auditctl.ErrLocked),
// and the initial namespaces. What rules cost other processes on the
// machine is in docs/performance.md: every task forked while any audit
// rule exists takes audit's syscall slow path. While audit is enabled and
// no audit daemon runs, the kernel also prints records to its log
// (rate-limited), including other runs' loginuid writes.
//
// Conclusive means: Observation.Close returned no error and no loss, and
// no access is Unverified. An Unverified access (its name now leads to
// another inode, the name was relative to a directory descriptor that
// Dirs could not place, or the kernel recorded none, as for a file
// created through a dangling symlink) is only a candidate: the run is
// inconclusive unless every candidate is allowed.
package touch
