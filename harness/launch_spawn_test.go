package harness

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A launch cancelled while the run's init is stopped names the stopped
// init, even when the cancel comes before the wait's next look at it.
func TestAwaitStatusCancelledNamesAStoppedInit(t *testing.T) {
	init := exec.Command("sleep", "60")
	if err := init.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = init.Process.Kill(); _ = init.Wait() })
	if err := init.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Stopped as the kernel sees it before the wait looks.
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(init.Process.Pid, &ws, syscall.WUNTRACED, nil); err != nil || !ws.Stopped() {
		t.Fatalf("sleep not stopped: %v %v", err, ws)
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := awaitStatus(ctx, fds[0], true, init.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), "the run's init") || !strings.Contains(err.Error(), "was stopped") {
		t.Errorf("awaitStatus = %v, want the stopped init named", err)
	}
	// Without an init to look at, the cancel is all there is to say.
	if err := awaitStatus(ctx, fds[0], false, 0); err == nil || !strings.Contains(err.Error(), "waiting for the agent's start") {
		t.Errorf("awaitStatus without init = %v", err)
	}
}
