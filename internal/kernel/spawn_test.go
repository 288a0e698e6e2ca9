//go:build linux && cgo

package kernel

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

var allowAll = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}

type spawned struct {
	pid, pidfd int
	err        error
}

// heldChild is a Spawn in progress: the child has reported its session
// and waits for the go-ahead.
type heldChild struct {
	ses      uint32
	listener int // -1 without one
	controlW *os.File
	status   int
	done     chan spawned
}

// spawnHeld starts cfg (stdio /dev/null unless set) and reads the session
// record.
func spawnHeld(t *testing.T, cfg *SpawnConfig) *heldChild {
	t.Helper()
	controlR, controlW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statusParent, statusChild, err := StatusSocket()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(statusParent) })
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { devnull.Close() })
	for i, fd := range cfg.Stdio {
		if fd == 0 {
			cfg.Stdio[i] = int(devnull.Fd())
		}
	}
	cfg.Control, cfg.ControlPeer, cfg.Status = int(controlR.Fd()), int(controlW.Fd()), statusChild
	cfg.DropCaps = 1 << unix.CAP_AUDIT_CONTROL
	h := &heldChild{controlW: controlW, status: statusParent, done: make(chan spawned, 1)}
	go func() {
		pid, pidfd, _, err := Spawn(cfg) // no PID namespace here: nothing to free
		controlR.Close()
		unix.Close(statusChild)
		h.done <- spawned{pid, pidfd, err}
	}()
	st, lfd, err := ReadSpawnStatus(statusParent)
	if err != nil || st.Kind != StatusSession {
		t.Fatalf("first status %+v, %v; want the session report", st, err)
	}
	h.ses, h.listener = st.Ses, lfd
	return h
}

// A parent that gives up (or dies) before the go-ahead closes its end of
// the control pipe: the child must see EOF and exit, not read forever
// while holding copies of the parent's files (its lock files among them).
func TestSpawnChildExitsWhenParentGivesUpBeforeGoAhead(t *testing.T) {
	testutil.RequireAudit(t)
	h := spawnHeld(t, &SpawnConfig{AgentSetup: AgentSetup{Path: "/bin/true", Args: []string{"true"}, Program: allowAll}})
	h.controlW.Close() // give up without the go-ahead
	select {
	case s := <-h.done:
		if s.err != nil {
			t.Fatal(s.err)
		}
		defer unix.Close(s.pidfd)
		var ws unix.WaitStatus
		if _, err := unix.Wait4(s.pid, &ws, 0, nil); err != nil {
			t.Fatal(err)
		}
		if !ws.Exited() || ws.ExitStatus() != 126 {
			t.Errorf("child ended with %v; want exit 126 (parent gave up)", ws)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the child still waits for a go-ahead its parent can no longer send")
	}
}

// The listener the child hands over stays open while an orphan of the run
// lives, after the first process has exited and been reaped, and hangs up
// once the orphan is gone too.
func TestSpawnListenerOutlivesTheFirstProcess(t *testing.T) {
	testutil.RequireAudit(t)
	if err := becomeSubreaper(); err != nil {
		t.Fatal(err)
	}
	holdR, holdW, err := os.Pipe() // the orphan lives until we close holdW
	if err != nil {
		t.Fatal(err)
	}
	defer holdR.Close()
	defer holdW.Close()
	// Without job control a background job's stdin is /dev/null unless
	// redirected: keep the pipe on fd 3 and read that.
	h := spawnHeld(t, &SpawnConfig{
		AgentSetup: AgentSetup{Path: "/bin/sh", Args: []string{"sh", "-c", "exec 3<&0; (cat <&3 >/dev/null) &"},
			Program: allowAll, Listener: allowAll},
		Stdio: [3]int{int(holdR.Fd())},
	})
	if h.listener < 0 {
		t.Fatal("the session record carried no listener fd")
	}
	defer unix.Close(h.listener)
	if _, err := h.controlW.Write([]byte{'g'}); err != nil {
		t.Fatal(err)
	}
	h.controlW.Close()
	s := <-h.done
	if s.err != nil {
		t.Fatal(s.err)
	}
	defer unix.Close(s.pidfd)
	if _, err := unix.Wait4(s.pid, nil, 0, nil); err != nil {
		t.Fatal(err)
	}
	members, err := SessionMembers(h.ses)
	if err != nil || len(members) != 1 {
		t.Fatalf("session %d members %+v, %v: want the orphan alone", h.ses, members, err)
	}
	if over, err := ListenerHungUp(h.listener); err != nil || over {
		t.Fatalf("listener hung up (%v, %v) while the orphan %d lives", over, err, members[0].PID)
	}
	orphan, err := PidfdOpen(members[0].PID)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(orphan)
	holdW.Close() // cat sees EOF and exits; it is our child now (subreaper)
	if _, err := WaitReady([]int{h.listener}, 10_000); err != nil {
		t.Fatal(err)
	}
	// Kernels differ on whether a zombie still holds its filter (6.18
	// here: no); the orphan is ours to reap either way.
	if _, err := WaitReady([]int{orphan}, 10_000); err != nil {
		t.Fatal(err)
	}
	if reaped, err := reapPidfd(orphan); err != nil || !reaped {
		t.Fatalf("reap the orphan: %v, %v", reaped, err)
	}
	if over, err := ListenerHungUp(h.listener); err != nil || !over {
		t.Fatalf("listener still open (%v, %v) after the run's last process was reaped", over, err)
	}
}
