package kernel

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// A parent that gives up (or dies) before the go-ahead closes its end of
// the control pipe: the child must see EOF and exit, not read forever
// while holding copies of the parent's files (its lock files among them).
func TestSpawnChildExitsWhenParentGivesUpBeforeGoAhead(t *testing.T) {
	testutil.RequireAudit(t)
	controlR, controlW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statusR.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	allow := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
	cfg := &SpawnConfig{
		AgentSetup: AgentSetup{Path: "/bin/true", Args: []string{"true"}, LoginUID: 0, Program: allow},
		Stdio:      [3]int{int(devnull.Fd()), int(devnull.Fd()), int(devnull.Fd())},
		Control:    int(controlR.Fd()), ControlPeer: int(controlW.Fd()), Status: int(statusW.Fd()),
		DropCap: unix.CAP_AUDIT_CONTROL,
	}
	type spawned struct {
		pid, pidfd int
		err        error
	}
	done := make(chan spawned, 1)
	go func() {
		pid, pidfd, err := Spawn(cfg)
		done <- spawned{pid, pidfd, err}
	}()
	if st, err := ReadSpawnStatus(statusR); err != nil || st.Kind != StatusSession {
		t.Fatalf("first status %+v, %v; want the session report", st, err)
	}
	controlW.Close() // give up without the go-ahead
	select {
	case s := <-done:
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
	controlR.Close()
	statusW.Close()
}
