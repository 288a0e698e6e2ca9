package harness

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// startVfork starts the agent with kernel.Spawn: a CLONE_VM|CLONE_VFORK
// child that runs only raw syscalls (the same steps as the shim) and execs
// the agent directly, without starting a second Go runtime.
func startVfork(cfg *kernel.AgentSetup, stdin io.Reader, stdout, stderr io.Writer) (*agentProcess, error) {
	stdio, controlR, controlW, statusR, statusW, err := openLaunchPipes(cfg.Ctty, stdin, stdout, stderr)
	if err != nil {
		return nil, err
	}
	spawn := &kernel.SpawnConfig{AgentSetup: *cfg,
		Control: int(controlR.Fd()), ControlPeer: int(controlW.Fd()), Status: int(statusW.Fd())}
	for i, f := range stdio.files {
		spawn.Stdio[i] = int(f.Fd())
	}
	type spawned struct {
		pid, pidfd int
		err        error
	}
	done := make(chan spawned, 1)
	go func() {
		pid, pidfd, err := kernel.Spawn(spawn)
		// The child has exec'd or exited: drop our copies of its ends, so
		// the status pipe reads EOF once the child's copy closed on exec.
		controlR.Close()
		statusW.Close()
		stdio.started()
		done <- spawned{pid, pidfd, err}
	}()

	p := &agentProcess{pid: -1, pidfd: -1, listener: -1}
	var child spawned
	reap := func() (*os.ProcessState, error) {
		proc, err := os.FindProcess(child.pid)
		if err != nil {
			return nil, err
		}
		return proc.Wait()
	}
	var finished bool
	var finishErr error
	finish := func() error { // idempotent: Spawn's result is read once
		if !finished {
			finished = true
			child = <-done
			finishErr = child.err
			if finishErr == nil {
				p.pid, p.pidfd = child.pid, child.pidfd
			}
		}
		return finishErr
	}
	p.abort = func() {
		controlW.Close() // before the go-ahead, the child exits on EOF
		_ = finish()
		statusR.Close()
		if child.pid > 0 {
			_ = kernel.PidfdSignal(child.pidfd, unix.SIGKILL)
			_, _ = reap()
		}
		stdio.wait()
		p.closePidfd()
	}
	p.wait = func() (*os.ProcessState, error) {
		state, err := reap()
		if serr := stdio.wait(); err == nil {
			err = serr
		}
		return state, err
	}
	p.release = func() error {
		_, werr := controlW.Write([]byte{'g'})
		controlW.Close()
		if err := finish(); err != nil {
			statusR.Close()
			return fmt.Errorf("%w: %w", ErrAgentStart, err)
		}
		st, lfd, err := kernel.ReadSpawnStatus(int(statusR.Fd()))
		statusR.Close()
		if lfd >= 0 {
			unix.Close(lfd) // only the session record carries one
		}
		if err == io.EOF && werr == nil {
			return nil // exec'd: the close-on-exec status pipe closed
		}
		p.abort()
		if err == nil {
			err = st.Err()
		}
		return fmt.Errorf("%w: %s: %w", ErrAgentStart, cfg.Path, err)
	}

	st, lfd, err := kernel.ReadSpawnStatus(int(statusR.Fd()))
	if err == nil && st.Kind == kernel.StatusSession && (lfd >= 0 || len(cfg.Listener) == 0) {
		p.ses, p.listener = st.Ses, lfd
		return p, nil
	}
	if lfd >= 0 {
		unix.Close(lfd)
	}
	if err == nil && st.Kind == kernel.StatusSession {
		err = errors.New("the session record carried no listener")
	}
	// The child failed before the handshake (or the clone did).
	ferr := finish()
	p.abort()
	switch {
	case ferr != nil:
		err = ferr
	case err == nil:
		err = st.Err()
	}
	return nil, fmt.Errorf("%w: %s: %w", ErrAgentStart, cfg.Path, err)
}
