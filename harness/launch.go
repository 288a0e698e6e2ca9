package harness

import (
	"context"
	"errors"
	"syscall"
)

// ErrAgentStart is returned (wrapped) when the agent could not be started:
// the command was not found, the child could not set up the session, ...
var ErrAgentStart = errors.New("agent could not be started")

// ErrPrivileges is returned (wrapped) when sysgate lacks the privileges a
// run needs.
var ErrPrivileges = errors.New("insufficient privileges")

// capAuditControl is CAP_AUDIT_CONTROL: whoever holds it can rewrite its
// loginuid and so leave the run's audit session.
const capAuditControl = 30

// agentProcess is a started agent, held before the go-ahead with its
// fresh audit session id known (see startVfork).
type agentProcess struct {
	ses uint32
	// pid and pidfd are the agent's first process, the root of its tree
	// (known once release returns, with a PID namespace).
	pid   int
	pidfd int
	// initPid and initPidfd are the init of the run's PID namespace (-1
	// without one): killing it kills every process of the run at once.
	initPid   int
	initPidfd int
	// isolation says why the run has no PID namespace of its own ("" when
	// it has one).
	isolation string
	// listener is the run's listener fd (-1 before the session record):
	// the caller takes it over (listener.Serve).
	listener int
	// release lets the child drop privileges, load the filter and exec the
	// agent; it returns once the agent runs, or the child's error. With
	// the notify backend, serve takes over the filter's listener as soon
	// as the child sends it, before the execve (which it may hold).
	// ctx ending stops the wait for the agent's start.
	release func(ctx context.Context, serve func(listener int) error) error
	// wait returns the agent's wait status once its tree is gone, reaps
	// what sysgate started, and waits for the stdio copies. initErr is
	// what went wrong with the run's init (stopped, or killed because it
	// did not end, or ctx ended first): the run is inconclusive.
	wait func(ctx context.Context) (status syscall.WaitStatus, initErr, err error)
	// abort kills and reaps the child; for a failed start.
	abort func()
}

func (p *agentProcess) closePidfd() {
	if p.pidfd >= 0 {
		syscall.Close(p.pidfd)
		p.pidfd = -1
	}
	if p.initPidfd >= 0 {
		syscall.Close(p.initPidfd)
		p.initPidfd = -1
	}
}
