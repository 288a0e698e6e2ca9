// Package proc keeps a run's processes: it supervises the tree until the
// run is over (Supervise: the agent's first process through its pidfd,
// the rest until the run's filter hangs up, then a kill loop that stops
// the run's process group and PID namespace and reports what it killed
// as leaks), claims each run's audit session on disk so a later harness
// can reap the processes of one that was killed (ClaimSession,
// ReapAbandonedRuns), and sets up the agent's stdio, pipes or a relayed
// terminal (OpenLaunchPipes).
//
// It needs the privileges the run had: signalling the run's processes
// (the same uid, or root) and, for claims, sysgate's state directory.
// Tracking that fails is reported in Outcome.Err: the run cannot be
// trusted, and its verdict is inconclusive.
package proc
