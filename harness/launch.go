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
)

// ErrAgentStart is returned (wrapped) when the agent could not be started:
// the command was not found, the shim could not set up the session, ...
var ErrAgentStart = errors.New("agent could not be started")

// shimProcess is a started shim, stopped before the go-ahead with its
// audit session id known.
type shimProcess struct {
	cmd     *exec.Cmd
	pidfd   int
	ses     uint32
	control *os.File      // config pipe, then the go-ahead byte
	status  *bufio.Reader // "ses N", "error ...", EOF once the agent is exec'd
	statusF *os.File
}

// startShim re-execs the current binary as the shim and waits until it
// reports its fresh audit session id. The shim then waits for release.
func startShim(cfg *shimConfig, stdin io.Reader, stdout, stderr io.Writer) (*shimProcess, error) {
	controlR, controlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		controlR.Close()
		controlW.Close()
		return nil, err
	}
	s := &shimProcess{pidfd: -1, control: controlW, statusF: statusR, status: bufio.NewReader(statusR)}
	s.cmd = &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{"sysgate-shim"},
		// The shim's own environment; the agent gets cfg.Env. No async
		// preemption signals and no GC while the shim runs: a signal
		// handled after the filter is loaded would show up in the result.
		Env:         []string{shimEnv + "=1", "GODEBUG=asyncpreemptoff=1", "GOGC=off", "GOMAXPROCS=1"},
		Stdin:       stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		ExtraFiles:  []*os.File{controlR, statusW},
		SysProcAttr: &syscall.SysProcAttr{PidFD: &s.pidfd},
	}
	err = s.cmd.Start()
	controlR.Close()
	statusW.Close()
	if err != nil {
		controlW.Close()
		statusR.Close()
		return nil, fmt.Errorf("%w: start shim: %v", ErrAgentStart, err)
	}
	// The config may exceed a pipe's buffer; the shim reads it first thing.
	werr := make(chan error, 1)
	go func() { werr <- writeShimConfig(controlW, cfg) }()
	line, rerr := s.status.ReadString('\n')
	if err := <-werr; err != nil && rerr == nil {
		rerr = err
	}
	if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ses "); ok && rerr == nil {
		ses, err := strconv.ParseUint(v, 10, 32)
		if err == nil {
			s.ses = uint32(ses)
			return s, nil
		}
	}
	s.abort()
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

// release lets the shim drop privileges, load the filter and exec the
// agent. It returns once the agent runs, or the shim's error.
func (s *shimProcess) release() error {
	_, err := s.control.Write([]byte{'g'})
	s.control.Close()
	if err != nil {
		s.abort()
		return fmt.Errorf("%w: release shim: %v", ErrAgentStart, err)
	}
	line, rerr := s.status.ReadString('\n')
	s.statusF.Close()
	if rerr == io.EOF && line == "" {
		return nil // the status pipe closed on exec
	}
	s.abort()
	return shimError(line, rerr)
}

// abort kills the shim (a no-op if it already exited) and reaps it.
func (s *shimProcess) abort() {
	s.control.Close()
	s.statusF.Close()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.closePidfd()
}

func (s *shimProcess) closePidfd() {
	if s.pidfd >= 0 {
		syscall.Close(s.pidfd)
		s.pidfd = -1
	}
}
