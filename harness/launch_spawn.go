package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/harness/proc"
	"github.com/sysgate/sysgate/internal/kernel"
)

// startVfork starts the agent with kernel.Spawn. Where the kernel lets it
// (root, or a user namespace of the run's own: UserNamespace), the run
// gets a PID namespace of its own: a minimal init (pid 1,
// raw syscalls only, sharing sysgate's memory) sets up the session and starts the
// agent as its child. Elsewhere the agent is sysgate's own CLONE_VM|
// CLONE_VFORK child, and the process's isolation field says why.
func startVfork(cfg *kernel.AgentSetup, stdin io.Reader, stdout, stderr io.Writer) (*agentProcess, error) {
	isolation := ""
	if cfg.PidNamespace && !cfg.UserNamespace {
		if isolation = pidNamespaceUnavailable(); isolation != "" {
			c := *cfg
			c.PidNamespace = false
			cfg = &c
		}
	}
	p, err := spawnAgent(cfg, stdin, stdout, stderr)
	if p != nil {
		p.isolation = isolation
	}
	return p, err
}

func spawnAgent(cfg *kernel.AgentSetup, stdin io.Reader, stdout, stderr io.Writer) (*agentProcess, error) {
	stdio, controlR, controlW, statusR, statusW, err := proc.OpenLaunchPipes(cfg.Ctty, stdin, stdout, stderr)
	if errors.Is(err, proc.ErrStdio) {
		return nil, fmt.Errorf("%w: %v", ErrAgentStart, err)
	} else if err != nil {
		return nil, err
	}
	spawn := &kernel.SpawnConfig{AgentSetup: *cfg,
		Control: int(controlR.Fd()), ControlPeer: int(controlW.Fd()), Status: int(statusW.Fd())}
	for i, f := range stdio.Files {
		spawn.Stdio[i] = int(f.Fd())
	}
	l := &spawnLaunch{cfg: cfg, stdio: stdio, controlW: controlW, statusR: statusR,
		// With a PID namespace, or as the run's subreaper, an init starts
		// the agent and reports it.
		pidns: cfg.PidNamespace || cfg.Subreaper,
		done:  make(chan spawned, 1),
		p:     &agentProcess{pid: -1, pidfd: -1, initPid: -1, initPidfd: -1, listener: -1},
	}
	go func() {
		pid, pidfd, free, err := kernel.Spawn(spawn)
		// The child has exec'd or exited, or (init) holds copies of its
		// own: drop ours of its ends, so the status socket reads EOF once
		// the child's copies are gone.
		controlR.Close()
		statusW.Close()
		stdio.Started()
		l.done <- spawned{pid, pidfd, free, err}
	}()
	l.p.abort = l.abort
	l.p.wait = l.wait
	l.p.release = l.release
	return l.handshake()
}

// spawned is kernel.Spawn's result.
type spawned struct {
	pid, pidfd int
	free       func() // after the child is reaped: init shares our memory
	err        error
}

// spawnLaunch is one kernel.Spawn launch: sysgate's ends of the control
// pipe and the status socket, the child's stdio, and Spawn's result,
// which arrives on done once the child has exec'd or exited (or, init,
// started) and is read once (finish).
type spawnLaunch struct {
	cfg               *kernel.AgentSetup
	pidns             bool // an init starts the agent and reports it
	stdio             *proc.Stdio
	controlW, statusR *os.File
	done              chan spawned
	child             spawned
	finished          bool
	finishErr         error
	p                 *agentProcess
}

// handshake reads the child's session record (with the run's listener,
// when it has one): the process is then ready for its release.
func (l *spawnLaunch) handshake() (*agentProcess, error) {
	st, lfd, err := kernel.ReadSpawnStatus(int(l.statusR.Fd()))
	if err == nil && st.Kind == kernel.StatusSession && (lfd >= 0 || len(l.cfg.Listener) == 0) {
		l.p.ses, l.p.listener = st.Ses, lfd
		return l.p, nil
	}
	if lfd >= 0 {
		unix.Close(lfd)
	}
	if err == nil && st.Kind == kernel.StatusSession {
		err = errors.New("the session record carried no listener")
	}
	// The child failed before the handshake (or the clone did).
	ferr := l.finish()
	l.abort()
	switch {
	case ferr != nil:
		err = ferr
	case err == nil:
		err = st.Err()
	}
	return nil, fmt.Errorf("%w: %s: %w", ErrAgentStart, l.cfg.Path, err)
}

// reap waits for Spawn's child (the agent, or init) and frees what init
// shared once it is gone.
func (l *spawnLaunch) reap() (*os.ProcessState, error) {
	proc, err := os.FindProcess(l.child.pid)
	if err != nil {
		return nil, err
	}
	state, err := proc.Wait()
	if err == nil && l.child.free != nil {
		l.child.free()
		l.child.free = nil
	}
	return state, err
}

// finish reads Spawn's result; idempotent: it is read once.
func (l *spawnLaunch) finish() error {
	if !l.finished {
		l.finished = true
		l.child = <-l.done
		l.finishErr = l.child.err
		if l.finishErr == nil {
			if l.pidns {
				l.p.initPid, l.p.initPidfd = l.child.pid, l.child.pidfd
			} else {
				l.p.pid, l.p.pidfd = l.child.pid, l.child.pidfd
			}
		}
	}
	return l.finishErr
}

func (l *spawnLaunch) abort() {
	p, child := l.p, &l.child
	l.controlW.Close() // before the go-ahead, the child exits on EOF
	_ = l.finish()
	l.statusR.Close()
	if p.pidfd >= 0 && p.pidfd != child.pidfd {
		_ = kernel.PidfdSignal(p.pidfd, unix.SIGKILL) // the agent, under a subreaper init
	}
	if child.pid > 0 {
		if l.pidns && !l.cfg.PidNamespace {
			// A subreaper init takes nobody with it: the agent it
			// started (in its group, or found as its descendant) goes
			// first.
			stopSubreaperRun(child.pid)
		}
		_ = kernel.PidfdSignal(child.pidfd, unix.SIGKILL) // init: the whole namespace
		_, _ = l.reap()
	}
	l.stdio.Wait()
	p.closePidfd()
}

func (l *spawnLaunch) wait(ctx context.Context) (syscall.WaitStatus, error, error) {
	ws, initErr, err := waitStatus(ctx, l.pidns, l.statusR, l.p.initPid, l.p.initPidfd, l.reap)
	if serr := l.stdio.Wait(); err == nil {
		err = serr
	}
	return ws, initErr, err
}

// release gives the child the go-ahead and waits until the agent runs:
// exec'd, or reported by init. With the notify backend it first hands the
// agent filter's listener to serve.
func (l *spawnLaunch) release(ctx context.Context, serve func(listener int) error) error {
	cfg, p, statusR := l.cfg, l.p, l.statusR
	_, werr := l.controlW.Write([]byte{'g'})
	l.controlW.Close()
	var st kernel.SpawnStatus
	var fd int
	var err error
	notified := false
	if cfg.Notify && werr == nil {
		// The agent sends its filter's listener right before its
		// execve, which may wait for the listener's answer: serve
		// it before waiting for the exec.
		st, fd, err = kernel.ReadSpawnStatus(int(statusR.Fd()))
		if err == nil && st.Kind == kernel.StatusListener && fd >= 0 {
			if err = serve(fd); err == nil {
				notified = true
			}
			fd = -1
		}
	}
	if ferr := l.finish(); ferr != nil {
		statusR.Close()
		return fmt.Errorf("%w: %w", ErrAgentStart, ferr)
	}
	switch {
	case notified || !cfg.Notify:
		if err = awaitStatus(ctx, int(statusR.Fd()), l.pidns, l.child.pid); err == nil {
			st, fd, err = kernel.ReadSpawnStatus(int(statusR.Fd()))
		}
	case werr != nil:
		err = werr
	case err == io.EOF:
		err = errors.New("the child exited before it sent its filter's listener")
	}
	switch {
	case cfg.Notify && !notified:
		// What came instead of the listener: the agent's error, or
		// its end.
		if err == nil && st.Kind == kernel.StatusListener {
			err = errors.New("the listener record carried no listener")
		}
	case err == nil && st.Kind == kernel.StatusAgent && fd >= 0 && werr == nil:
		// init started the agent; the status socket stays open for
		// its wait status.
		pid, perr := kernel.PidfdPid(fd)
		if perr == nil {
			p.pid, p.pidfd = pid, fd
			return nil
		}
		unix.Close(fd)
		err = perr
	case !l.pidns && err == io.EOF && werr == nil:
		statusR.Close()
		return nil // exec'd: the close-on-exec status socket closed
	case fd >= 0:
		unix.Close(fd) // only the session and agent records carry one
	}
	l.abort()
	if err == nil {
		err = st.Err()
	}
	return fmt.Errorf("%w: %s: %w", ErrAgentStart, cfg.Path, err)
}

// stoppedCheck is how often a wait for init's record looks whether init
// is stopped.
const stoppedCheck = 50 * time.Millisecond

// awaitStatus waits until the status socket has a record (or its end),
// ctx ends, or the run's init is found stopped. The agent runs from its
// execve, and init reports it only afterwards: a process of the run can
// stop a subreaper init (same uid, no PID namespace) before its report,
// which would hold this wait forever.
func awaitStatus(ctx context.Context, status int, hasInit bool, initPid int) error {
	cancelR, stop, err := proc.ContextFd(ctx)
	if err != nil {
		return err
	}
	defer stop()
	for {
		ready, err := kernel.WaitReady([]int{status, cancelR}, int(stoppedCheck.Milliseconds()))
		switch {
		case err != nil:
			return err
		case len(ready) > 0 && ready[0] == 0:
			return nil
		case len(ready) > 0:
			// Cancelled: a stopped init is why nothing came, even when the
			// cancel beat the next look at it.
			if hasInit {
				if stopped, err := kernel.Stopped(initPid); err == nil && stopped {
					return fmt.Errorf("the run's init (pid %d) was stopped before it reported the agent (a signal from the agent?); waiting for it: %w", initPid, ctx.Err())
				}
			}
			return fmt.Errorf("waiting for the agent's start: %w", ctx.Err())
		}
		if !hasInit {
			continue
		}
		if stopped, err := kernel.Stopped(initPid); err == nil && stopped {
			return fmt.Errorf("the run's init (pid %d) was stopped before it reported the agent (a signal from the agent?)", initPid)
		}
	}
}

// stopSubreaperRun kills what a subreaper init started: its process group
// and its descendants (one listing: for a start that failed, before the
// agent had time to fork much).
func stopSubreaperRun(initPid int) {
	_ = kernel.SignalGroup(initPid, unix.SIGSTOP)
	members, _ := kernel.Descendants(initPid)
	for _, m := range members {
		if fd, err := kernel.PidfdOpen(m.PID); err == nil {
			_ = kernel.PidfdSignal(fd, unix.SIGKILL)
			unix.Close(fd)
		}
	}
	_ = kernel.SignalGroup(initPid, unix.SIGKILL)
}

// killedStatus is the wait status of a process killed by SIGKILL.
const killedStatus = syscall.WaitStatus(syscall.SIGKILL)

// initExitWait bounds the wait for the run's init once the run is over:
// it has only its last zombies to reap, the agent's status to report and
// itself to end, which takes milliseconds.
const initExitWait = 5 * time.Second

// waitStatus is the agent's wait status. Without a PID namespace the agent
// is the child sysgate reaps. With one, init reports it (StatusExit) when
// it reaps the agent, then closes the status socket as it exits; an init
// killed before it could report (the run's end after the grace) took the
// agent with it: SIGKILL.
//
// A process of the run can stop a subreaper init (same uid, no PID
// namespace): stopped, it reaps and reports nothing. The run is over when
// this is called, so nothing is left to stop it again: it is continued,
// and the stop it was in is returned in initErr (the run is inconclusive).
// An init that still has not ended after initExitWait, or when ctx ends,
// is killed, and initErr says so.
func waitStatus(ctx context.Context, pidns bool, statusR *os.File, initPid, initPidfd int, reap func() (*os.ProcessState, error)) (ws syscall.WaitStatus, initErr, err error) {
	if !pidns {
		state, err := reap()
		if err != nil {
			return 0, nil, err
		}
		return state.Sys().(syscall.WaitStatus), nil, nil
	}
	defer statusR.Close()
	if stopped, err := kernel.Stopped(initPid); err == nil && stopped {
		initErr = fmt.Errorf("the run's init (pid %d) was stopped when the run ended (a signal from a process of the run?): it could not reap the run", initPid)
	}
	// SIGCONT also drops a SIGSTOP still pending.
	_ = kernel.PidfdSignal(initPidfd, unix.SIGCONT)
	cancelR, stop, err := proc.ContextFd(ctx)
	if err != nil {
		return killedStatus, initErr, err
	}
	defer stop()
	deadline := time.Now().Add(initExitWait)
	ws, reported := killedStatus, false
	for {
		ready, err := kernel.WaitReady([]int{int(statusR.Fd()), cancelR}, max(1, int(time.Until(deadline).Milliseconds())))
		if err != nil || len(ready) == 0 || ready[0] != 0 {
			switch {
			case err != nil:
				initErr = errors.Join(initErr, fmt.Errorf("waiting for the run's init: %w", err))
			case len(ready) == 0:
				initErr = errors.Join(initErr, fmt.Errorf("the run's init (pid %d) had not ended %v after the run; killed", initPid, initExitWait))
			default:
				initErr = errors.Join(initErr, fmt.Errorf("waiting for the run's init: %w", ctx.Err()))
			}
			_ = kernel.PidfdSignal(initPidfd, unix.SIGKILL)
			break
		}
		st, fd, err := kernel.ReadSpawnStatus(int(statusR.Fd()))
		if fd >= 0 {
			unix.Close(fd)
		}
		if err != nil { // io.EOF: init is gone
			break
		}
		if st.Kind == kernel.StatusExit && !reported {
			ws, reported = syscall.WaitStatus(st.Errno), true
		}
	}
	if _, err := reap(); err != nil {
		return ws, initErr, err
	}
	return ws, initErr, nil
}
