package auditctl

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
)

// A process that holds a shared hold (a test holding the tuning) and
// waits for a process of its own that needs one too (the sysgate it
// starts) must not deadlock against a would-be exclusive holder that
// arrived in between: the waiter holds intent.lock, the child queues at
// intent.lock, the holder waits for the child. The waiter gives
// intent.lock back now and then, so the child gets through.
func TestExclusiveWaiterLetsASharedHoldersChildThrough(t *testing.T) {
	testutil.RequireRoot(t) // /run/sysgate
	ctx, unlock := holdSharedRuns(t)
	child := func(mode string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	waiter, waiterOut := child("lock-runs-exclusive")
	// The waiter holds intent.lock once a shared try on it fails.
	intent, err := openLock("intent.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer intent.Close()
	for {
		ok, err := kernel.TryFlock(intent, kernel.LockShared)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if err := kernel.Flock(intent, kernel.LockUnlock); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatalf("the exclusive waiter never took intent.lock: %s", waiterOut)
		}
		time.Sleep(time.Millisecond)
	}
	sharer, sharerOut := child("lock-runs-shared")
	if err := sharer.Wait(); err != nil || !strings.Contains(sharerOut.String(), "locked") {
		t.Fatalf("the shared holder's child did not get its hold while an exclusive holder waited: %v: %s", err, sharerOut)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := waiter.Wait(); err != nil || !strings.Contains(waiterOut.String(), "locked") {
		t.Fatalf("the exclusive holder did not get runs.lock once it was free: %v: %s", err, waiterOut)
	}
}

// A process that holds the run tuning and upgrades to ExclusiveKernel
// drops its shared hold while it waits (lockRuns). A would-be exclusive
// holder that gets runs.lock in that gap must give it back: otherwise it
// holds the kernel "exclusively" beside a live tuning holder, and may
// force faults or replace tuning.json under that process's runs (CI saw
// TestRecoverOwnerTrustsTheWatchdog find such a holder, from another
// package's test, while the race pass ran packages side by side).
func TestExclusiveYieldsToAnUpgradingTuningHolder(t *testing.T) {
	testutil.RequireAudit(t)
	ctx, unlock := holdSharedRuns(t)
	upgrader := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	upgrader.Env = append(os.Environ(), childEnv+"=tune-then-exclusive")
	upgrader.Stderr = os.Stderr
	stdin, err := upgrader.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := upgrader.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := upgrader.Start(); err != nil {
		t.Fatal(err)
	}
	defer upgrader.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "tuned" {
		t.Fatalf("the upgrader did not take the tuning: %q %v", lines.Text(), lines.Err())
	}
	waitHoldsIntent(ctx, t, upgrader.Process.Pid)
	other := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	other.Env = append(os.Environ(), childEnv+"=exclusive-report")
	var otherOut bytes.Buffer
	other.Stdout, other.Stderr = &otherOut, &otherOut
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	// The upgrader gives intent.lock back every intentHold; once the
	// other would-be holder has it, free runs.lock: it is first in line.
	waitHoldsIntent(ctx, t, other.Process.Pid)
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() || lines.Text() != "exclusive" {
		t.Fatalf("the upgrader never got ExclusiveKernel: %q %v", lines.Text(), lines.Err())
	}
	stdin.Close()
	if err := upgrader.Wait(); err != nil {
		t.Fatalf("upgrader: %v", err)
	}
	if err := other.Wait(); err != nil {
		t.Fatalf("the other holder: %v: %s", err, otherOut.String())
	}
	if got := strings.TrimSpace(otherOut.String()); got != "holders:" {
		t.Errorf("the other ExclusiveKernel holder found live tuning holders (the upgrader is %d): %q", upgrader.Process.Pid, got)
	}
}

// waitHoldsIntent waits until pid holds intent.lock exclusively, as
// /proc/locks lists it.
func waitHoldsIntent(ctx context.Context, t *testing.T, pid int) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(stateFile("intent.lock"), &st); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("FLOCK ADVISORY WRITE %d %02x:%02x:%d ", pid, unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	for {
		b, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if _, rest, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(strings.Join(strings.Fields(rest), " ")+" ", want) {
				return
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("pid %d never held intent.lock (want %q in /proc/locks):\n%s", pid, want, b)
		}
		time.Sleep(time.Millisecond)
	}
}

// holdSharedRuns takes a shared hold on runs.lock, as a run does, for
// the test (unlock gives it back earlier), and a context that ends at
// the test's deadline: an exclusive holder waits for every run on the
// machine, and in the full go test ./... other packages' runs keep
// coming (a minute was not enough there).
func holdSharedRuns(t *testing.T) (ctx context.Context, unlock func() error) {
	t.Helper()
	if err := lockRuns(false); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	unlock = func() (err error) {
		once.Do(func() { err = unlockRuns(false) })
		return err
	}
	t.Cleanup(func() { _ = unlock() })
	ctx = context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		t.Cleanup(cancel)
	}
	return ctx, unlock
}
