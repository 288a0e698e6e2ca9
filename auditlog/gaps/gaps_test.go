package gaps

import (
	"slices"
	"testing"
	"time"
)

func TestGapTrackerToleratesReorderAndSharedSerials(t *testing.T) {
	g := New(time.Second)
	t0 := time.Unix(100, 0)
	// 5 arrives before 4 (queued out of order); 6 three times (a
	// multi-record event); nothing is lost.
	for _, s := range []uint64{1, 2, 3, 5, 4, 6, 6, 6, 7} {
		g.Observe(s, t0)
	}
	g.Expire(t0.Add(10 * time.Second))
	if g.lost != 0 || len(g.pending) != 0 {
		t.Errorf("lost %d, pending %v; want none", g.lost, g.pending)
	}
}

func TestGapTrackerCountsMissingSerialsAfterGrace(t *testing.T) {
	g := New(time.Second)
	t0 := time.Unix(100, 0)
	for _, s := range []uint64{10, 11, 15, 16} { // 12, 13, 14 missing
		g.Observe(s, t0)
	}
	if ok, _ := g.SettledBelow(16); ok {
		t.Errorf("settled with serials 12-14 pending")
	}
	g.Expire(t0.Add(500 * time.Millisecond))
	if g.lost != 0 {
		t.Errorf("declared lost before the grace: %d", g.lost)
	}
	g.Observe(13, t0.Add(600*time.Millisecond)) // late, not lost
	g.Expire(t0.Add(1500 * time.Millisecond))
	if g.lost != 2 {
		t.Errorf("lost %d, want 2 (12 and 14)", g.lost)
	}
	if ok, _ := g.SettledBelow(16); !ok {
		t.Errorf("not settled after expiry")
	}
	g.Observe(16+maxPendingGap+10, t0)
	if g.lost != 2+maxPendingGap+9 || len(g.pending) != 0 {
		t.Errorf("huge jump: lost %d pending %d", g.lost, len(g.pending))
	}
}

func TestGapTrackerNamesTheLostSerials(t *testing.T) {
	g := New(time.Second)
	t0 := time.Unix(100, 0)
	for _, s := range []uint64{10, 16} { // 11-15 missing
		g.Observe(s, t0)
	}
	g.Observe(13, t0) // late, not lost
	g.Expire(t0.Add(2 * time.Second))
	start := g.LostCount() // a subscription opens here
	for _, s := range []uint64{18, 20} {
		g.Observe(s, t0.Add(3*time.Second))
	}
	g.Expire(t0.Add(5 * time.Second))
	g.Observe(20+maxPendingGap+2, t0.Add(5*time.Second)) // lost at once
	all := g.LostSince(0)
	want := []SerialRange{{11, 12}, {14, 15}, {17, 17}, {19, 19}, {21, 21 + maxPendingGap}}
	if !slices.Equal(all, want) {
		t.Errorf("lost ranges %v, want %v", all, want)
	}
	if got := g.LostSince(start); !slices.Equal(got, want[2:]) {
		t.Errorf("lost since the subscription %v, want %v", got, want[2:])
	}
	for i := 0; i < maxRecentLost+5; i++ {
		g.declareLost(uint64(1e9+2*i), uint64(1e9+2*i))
	}
	if n := len(g.LostSince(0)); n != maxRecentLost {
		t.Errorf("%d ranges kept, want the latest %d", n, maxRecentLost)
	}
}
