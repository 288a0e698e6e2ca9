package auditlog

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/internal/testutil"
)

func TestSuppressedSentinelTimesOut(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t) // like a run: no fault-forcing test (ExclusiveKernel) elsewhere meanwhile
	s, err := Open(Options{BarrierTimeout: 50 * time.Millisecond, BarrierAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetSentinelSuppressed(true)
	start := time.Now()
	if err := s.Barrier(context.Background()); !errors.Is(err, ErrBarrierTimeout) {
		t.Fatalf("barrier: %v, want ErrBarrierTimeout", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("gave up after %v, before two attempts of 50ms", d)
	}
	sub := s.Subscribe(1, func(*record.SeccompEvent) {})
	if _, err := sub.Close(context.Background()); !errors.Is(err, ErrBarrierTimeout) {
		t.Errorf("close: %v, want ErrBarrierTimeout (the run is inconclusive)", err)
	}
	s.SetSentinelSuppressed(false)
	if err := s.Barrier(context.Background()); err != nil {
		t.Errorf("barrier after unblocking: %v", err)
	}
}

func TestClosedStream(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t) // like a run: no fault-forcing test (ExclusiveKernel) elsewhere meanwhile
	s, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Barrier(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Barrier(testContext(t)); !errors.Is(err, ErrClosed) {
		t.Errorf("barrier after close: %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// A process that holds the tuning (a run) and then asks for the exclusive
// lock converts its hold instead of waiting for itself.
func TestExclusiveWhileHoldingTuning(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t)
	done := make(chan error, 1)
	go func() {
		release, err := auditctltest.ExclusiveKernel()
		if err == nil {
			err = release()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-testContext(t).Done():
		t.Fatal("ExclusiveKernel while holding AcquireTuning did not return in 30 s")
	}
	// The tuning hold is still shared and working: a barrier passes.
	s := sharedForTest(t)
	if err := s.Barrier(testContext(t)); err != nil {
		t.Fatal(err)
	}
}
