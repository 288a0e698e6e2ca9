package barrier

import (
	"testing"

	"github.com/sysgate/sysgate/auditlog/record"
)

// A sentinel releases only the waiters registered before it was launched:
// a waiter that arrives while a sentinel is in flight needs the next one.
func TestSentinelReleasesOnlyEarlierWaiters(t *testing.T) {
	b, other := New(7), New(8)
	marker := func(name string) record.Text { return record.Text{Raw: []byte(name), Quoted: true} }
	released := func(w *Waiter) bool {
		select {
		case <-w.Done():
			return true
		default:
			return false
		}
	}

	w1 := b.Register()
	g1 := b.next()
	w2 := b.Register() // while g1 is in flight
	g2 := b.next()
	if g1 != "sgb7.1" || !b.IsMarker(marker(g1)) || other.IsMarker(marker(g1)) || b.IsMarker(record.Text{Raw: []byte(g1)}) {
		t.Fatalf("marker %q recognition wrong", g1)
	}
	b.Fired(marker(g1), 100)
	if !released(w1) || w1.Serial() != 100 {
		t.Errorf("w1 not released by the sentinel launched after it")
	}
	if released(w2) {
		t.Errorf("w2 released by a sentinel launched before it registered")
	}
	b.Fired(marker(g2), 105)
	if !released(w2) || w2.Serial() != 105 {
		t.Errorf("w2 not released by its own sentinel")
	}
	b.Fired(marker(g2), 106) // a duplicate is harmless
	b.Fired(marker("sgb7.zz!"), 107)

	w3 := b.Register()
	b.CloseAll()
	if !released(w3) || w3.Serial() != 0 {
		t.Errorf("CloseAll left a waiter waiting (serial %d)", w3.Serial())
	}
}

// A marker (a run's start) is released by its own sentinel alone: a
// later sentinel's serial would be no lower bound for the run's records,
// and its own releases no barrier waiter.
func TestMarkerReleasedOnlyByItsOwnSentinel(t *testing.T) {
	b := New(3)
	marker := func(name string) record.Text { return record.Text{Raw: []byte(name), Quoted: true} }
	barrierWaiter := b.Register()
	name, m := b.nextMarker()
	later := b.next()
	b.Fired(marker(later), 50)
	select {
	case <-m.Done():
		t.Fatalf("marker %s released by a later sentinel (serial %d)", name, m.Serial())
	default:
	}
	if barrierWaiter.Serial() != 50 {
		t.Errorf("the barrier waiter was not released by its sentinel")
	}
	w2 := b.Register()
	b.Fired(marker(name), 40)
	select {
	case <-m.Done():
	default:
		t.Fatalf("marker %s not released by its own sentinel", name)
	}
	if m.Serial() != 40 || w2.Serial() != 0 {
		t.Errorf("marker serial %d, barrier waiter %d; want 40 and unreleased", m.Serial(), w2.Serial())
	}
}
