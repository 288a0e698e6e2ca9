package auditctl

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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
	if err := lockRuns(false); err != nil {
		t.Fatal(err)
	}
	held := true
	defer func() {
		if held {
			_ = unlockRuns(false)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
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
	held = false
	if err := unlockRuns(false); err != nil {
		t.Fatal(err)
	}
	if err := waiter.Wait(); err != nil || !strings.Contains(waiterOut.String(), "locked") {
		t.Fatalf("the exclusive holder did not get runs.lock once it was free: %v: %s", err, waiterOut)
	}
}
