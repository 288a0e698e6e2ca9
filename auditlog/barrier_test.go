package auditlog

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/testutil"
)

// A sentinel releases only the waiters registered before it was launched:
// a waiter that arrives while a sentinel is in flight needs the next one.
func TestSentinelReleasesOnlyEarlierWaiters(t *testing.T) {
	var b barrierState
	b.init()
	register := func() *barrierWaiter {
		b.regs++
		w := &barrierWaiter{reg: b.regs, done: make(chan struct{})}
		b.waiters[w] = struct{}{}
		return w
	}
	launch := func() uint64 {
		b.gen++
		b.launched[b.gen] = b.regs
		return b.gen
	}
	marker := func(gen uint64) field {
		return field{raw: []byte("sgb7." + string("0123456789abcdefghijklmnopqrstuvwxyz"[gen])), quoted: true}
	}
	released := func(w *barrierWaiter) bool {
		select {
		case <-w.done:
			return true
		default:
			return false
		}
	}

	w1 := register()
	g1 := launch()
	w2 := register() // while g1 is in flight
	g2 := launch()
	if !b.isMarker(7, marker(g1)) || b.isMarker(8, marker(g1)) {
		t.Fatalf("marker recognition wrong")
	}
	b.fired(7, marker(g1), 100)
	if !released(w1) || w1.serial != 100 {
		t.Errorf("w1 not released by the sentinel launched after it")
	}
	if released(w2) {
		t.Errorf("w2 released by a sentinel launched before it registered")
	}
	b.fired(7, marker(g2), 105)
	if !released(w2) || w2.serial != 105 {
		t.Errorf("w2 not released by its own sentinel")
	}
	b.fired(7, marker(g2), 106) // a duplicate is harmless
	b.fired(7, field{raw: []byte("sgb7.zz!"), quoted: true}, 107)
}

func TestSuppressedSentinelTimesOut(t *testing.T) {
	testutil.RequireAudit(t)
	holdTuning(t) // like a run: no fault-forcing test (ExclusiveKernel) elsewhere meanwhile
	s, err := Open(Options{SuppressSentinel: true, BarrierTimeout: 50 * time.Millisecond, BarrierAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	if err := s.Barrier(context.Background()); !errors.Is(err, ErrBarrierTimeout) {
		t.Fatalf("barrier: %v, want ErrBarrierTimeout", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("gave up after %v, before two attempts of 50ms", d)
	}
	sub := s.Subscribe(1, func(*SeccompEvent) {})
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
	holdTuning(t) // like a run: no fault-forcing test (ExclusiveKernel) elsewhere meanwhile
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
