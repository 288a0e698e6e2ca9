package touch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/sysgate/sysgate/auditlog/auditctl"
)

// Installed is one run's audit rules, in the kernel until Remove.
type Installed struct {
	AUID     uint32
	release  func() error
	watchdog *exec.Cmd
	alive    *os.File      // the write end of the watchdog's pipe
	reaped   chan struct{} // closed once the dismissed watchdog is reaped
}

// Install starts a watchdog, then adds the rules for auid (Rules) and
// turns audit on for as long as they exist (auditctl.AddRules). The
// watchdog is this binary re-executed; it holds the read end of a pipe
// only this process can write to, so it sees end-of-file when this
// process dies, even by SIGKILL, and then removes the rules and restores
// enabled and the backlog (auditctl.RecoverOwner). Install does not wait
// for the watchdog to be ready: the pipe exists before it starts, so it
// sees the end-of-file whenever it gets to read.
//
// Needs root (CAP_AUDIT_CONTROL) and audit not locked (auditctl.ErrLocked).
// A collision with another run's auid gives auditctl.ErrRuleExists: draw
// another with NewAUID.
func Install(auid uint32, set Set, arches Arch) (*Installed, error) {
	rules, err := Rules(auid, set, arches)
	if err != nil {
		return nil, err
	}
	in := &Installed{AUID: auid}
	if err := in.startWatchdog(); err != nil {
		return nil, err
	}
	in.release, err = auditctl.AddRules(rules)
	if err != nil {
		return nil, errors.Join(err, in.stopWatchdog())
	}
	return in, nil
}

// Remove deletes the rules (only these), leaves the enabled hold and
// dismisses the watchdog.
func (in *Installed) Remove() error {
	var err error
	if in.release != nil {
		err = in.release()
		in.release = nil
	}
	return errors.Join(err, in.stopWatchdog())
}

// watchdogArg0 is the argv[0] that makes this binary a watchdog (see
// init): argv, unlike the environment, is set by the one exec that
// starts it and is not inherited by anything else.
const watchdogArg0 = "sysgate-touch-watchdog"

// releasedByte tells the watchdog the owner cleaned up itself; an
// end-of-file without it means the owner died.
const releasedByte = 'r'

func (in *Installed) startWatchdog() error {
	me, err := auditctl.Self()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe() // both O_CLOEXEC: no other child inherits w
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{watchdogArg0, strconv.Itoa(me.PID), strconv.FormatUint(me.Start, 10)},
		ExtraFiles: []*os.File{r}, // fd 3
		Stderr:     os.Stderr,
		// Its own process group: a Ctrl-C for sysgate's group must not
		// take the watchdog down with it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("start audit rule watchdog: %w", err)
	}
	in.watchdog, in.alive = cmd, w
	return nil
}

// stopWatchdog dismisses the watchdog and reaps it in the background:
// it may still be starting (the Go runtime and every package's init of
// a large binary), and waiting for that made Remove take 9-13 ms here.
func (in *Installed) stopWatchdog() error {
	if in.watchdog == nil {
		return nil
	}
	_, err := in.alive.Write([]byte{releasedByte})
	err = errors.Join(err, in.alive.Close())
	wd := in.watchdog
	in.watchdog, in.reaped = nil, make(chan struct{})
	go func() {
		wd.Wait() // its exit status is the test's business (watchdogDone)
		close(in.reaped)
	}()
	return err
}

// WatchdogPID is the watchdog's pid (for the crash test).
func (in *Installed) WatchdogPID() int { return in.watchdog.Process.Pid }

// watchdogReaped is closed once a dismissed watchdog has exited.
func (in *Installed) watchdogReaped() <-chan struct{} { return in.reaped }
