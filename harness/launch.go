package harness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ErrAgentStart is returned (wrapped) when the agent could not be started:
// the command was not found, the shim could not set up the session, ...
var ErrAgentStart = errors.New("agent could not be started")

// ErrPrivileges is returned (wrapped) when sysgate lacks the privileges a
// run needs.
var ErrPrivileges = errors.New("insufficient privileges")

// LauncherEnv picks how agents are started: "vfork" (the default: a
// CLONE_VFORK child of this process running raw syscalls, no second Go
// runtime) or "reexec" (this binary re-executed as the shim).
const LauncherEnv = "SYSGATE_LAUNCHER"

// launch starts the agent's child with the launcher LauncherEnv names.
func launch(cfg *kernel.AgentSetup, stdin io.Reader, stdout, stderr io.Writer) (*agentProcess, error) {
	if os.Getenv(LauncherEnv) == "reexec" {
		return startReexec(cfg, stdin, stdout, stderr)
	}
	return startVfork(cfg, stdin, stdout, stderr)
}

// agentProcess is a started agent, held before the go-ahead with its
// fresh audit session id known, whichever launcher started it.
type agentProcess struct {
	ses   uint32
	pid   int
	pidfd int
	// release lets the child drop privileges, load the filter and exec the
	// agent; it returns once the agent runs, or the child's error.
	release func() error
	// wait reaps the agent and waits for its stdio copies.
	wait func() (*os.ProcessState, error)
	// abort kills and reaps the child; for a failed start.
	abort func()
}

func (p *agentProcess) closePidfd() {
	if p.pidfd >= 0 {
		syscall.Close(p.pidfd)
		p.pidfd = -1
	}
}

// startReexec re-execs the current binary as the shim (see shim.go) and
// waits until it reports its fresh audit session id.
func startReexec(cfg *kernel.AgentSetup, stdin io.Reader, stdout, stderr io.Writer) (*agentProcess, error) {
	stdio, controlR, controlW, statusR, statusW, err := openLaunchPipes(stdin, stdout, stderr)
	if err != nil {
		return nil, err
	}
	p := &agentProcess{pidfd: -1}
	cmd := &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{"sysgate-shim"},
		// The shim's own environment; the agent gets cfg.Env. No async
		// preemption signals and no GC while the shim runs: a signal
		// handled after the filter is loaded would show up in the result.
		Env: []string{shimEnv + "=1", "GODEBUG=asyncpreemptoff=1", "GOGC=off", "GOMAXPROCS=1"},
		// Files only: exec.Cmd's own copying would make Wait wait for a
		// stdin reader that may never end.
		Stdin:       stdio.files[0],
		Stdout:      stdio.files[1],
		Stderr:      stdio.files[2],
		ExtraFiles:  []*os.File{controlR, statusW},
		SysProcAttr: &syscall.SysProcAttr{PidFD: &p.pidfd},
	}
	err = cmd.Start()
	controlR.Close()
	statusW.Close()
	stdio.started()
	if err != nil {
		controlW.Close()
		statusR.Close()
		stdio.wait()
		return nil, fmt.Errorf("%w: start shim: %v", ErrAgentStart, err)
	}
	status := bufio.NewReader(statusR)
	p.pid = cmd.Process.Pid
	p.wait = func() (*os.ProcessState, error) {
		err := cmd.Wait()
		if serr := stdio.wait(); err == nil {
			err = serr
		}
		return cmd.ProcessState, err
	}
	p.abort = func() {
		controlW.Close()
		statusR.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		stdio.wait()
		p.closePidfd()
	}
	p.release = func() error {
		_, err := controlW.Write([]byte{'g'})
		controlW.Close()
		if err != nil {
			p.abort()
			return fmt.Errorf("%w: release shim: %v", ErrAgentStart, err)
		}
		line, rerr := status.ReadString('\n')
		statusR.Close()
		if rerr == io.EOF && line == "" {
			return nil // the status pipe closed on exec
		}
		p.abort()
		return shimError(line, rerr)
	}
	// The config may exceed a pipe's buffer; the shim reads it first thing.
	werr := make(chan error, 1)
	go func() { werr <- writeShimConfig(controlW, cfg) }()
	line, rerr := status.ReadString('\n')
	if err := <-werr; err != nil && rerr == nil {
		rerr = err
	}
	if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ses "); ok && rerr == nil {
		if ses, err := strconv.ParseUint(v, 10, 32); err == nil {
			p.ses = uint32(ses)
			return p, nil
		}
	}
	p.abort()
	return nil, shimError(line, rerr)
}

func shimError(line string, err error) error {
	if msg, ok := strings.CutPrefix(strings.TrimSpace(line), "error "); ok {
		return fmt.Errorf("%w: %s", ErrAgentStart, msg)
	}
	if err == nil {
		err = fmt.Errorf("unexpected shim message %q", line)
	}
	return fmt.Errorf("%w: shim: %v", ErrAgentStart, err)
}
