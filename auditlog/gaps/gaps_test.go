package gaps

import (
	"slices"
	"testing"
	"time"
)

// started returns a Tracker counting from s0.
func started(s0 uint64, t0 time.Time) *Tracker {
	g := New(time.Second)
	g.Start(s0, t0)
	return g
}

func TestGapTrackerToleratesReorderAndSharedSerials(t *testing.T) {
	t0 := time.Unix(100, 0)
	g := started(1, t0)
	// 5 arrives before 4 (queued out of order); 6 three times (a
	// multi-record event); nothing is lost.
	for _, s := range []uint64{2, 3, 5, 4, 6, 6, 6, 7} {
		g.Observe(s, t0)
	}
	g.Expire(t0.Add(10 * time.Second))
	if g.lost != 0 || len(g.pending) != 0 {
		t.Errorf("lost %d, pending %v; want none", g.lost, g.pending)
	}
}

func TestGapTrackerCountsMissingSerialsAfterGrace(t *testing.T) {
	t0 := time.Unix(100, 0)
	g := started(9, t0)
	for _, s := range []uint64{10, 11, 15, 16} { // 12, 13, 14 missing
		g.Observe(s, t0)
	}
	if ok, _ := g.SettledBetween(9, 16); ok {
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
	if ok, _ := g.SettledBetween(9, 16); !ok {
		t.Errorf("not settled after expiry")
	}
	g.Observe(16+maxPendingGap+10, t0)
	if g.lost != 2+maxPendingGap+9 || len(g.pending) != 0 {
		t.Errorf("huge jump: lost %d pending %d", g.lost, len(g.pending))
	}
}

// The false gap of issue 42: a new socket's first record (serial 100,
// the bind's own, queued late) is older than records 101-140 that other
// processes' events had sent before the socket joined. Counting from it
// declared 101-140 lost; counting from the join marker (150) nothing is.
// Records above the marker that overtook it in the queue (152) count as
// arrived; only a serial above the marker that never comes is lost.
func TestGapTrackerCountsOnlyFromTheJoinMarker(t *testing.T) {
	t0 := time.Unix(100, 0)
	g := New(time.Second)
	for _, s := range []uint64{100, 141, 142, 143, 152, 149, 148} {
		g.Observe(s, t0)
	}
	g.Expire(t0.Add(time.Minute))
	if g.lost != 0 || len(g.pending) != 0 {
		t.Fatalf("before Start: lost %d, pending %v; want nothing counted", g.lost, g.pending)
	}
	if g.Highest() != 152 {
		t.Errorf("Highest %d, want 152", g.Highest())
	}
	g.Start(150, t0) // the join marker
	g.Start(160, t0) // only the first counts
	for _, s := range []uint64{151, 154, 147} {
		g.Observe(s, t0)
	}
	if ok, _ := g.SettledBetween(150, 155); ok {
		t.Errorf("settled with 153 pending")
	}
	g.Expire(t0.Add(2 * time.Second))
	n, ranges, exact := g.LostIn(0, 1000)
	if g.lost != 1 || n != 1 || !exact || !slices.Equal(ranges, []SerialRange{{153, 153}}) {
		t.Errorf("lost %d, LostIn %d %v %v; want only 153", g.lost, n, ranges, exact)
	}
}

// A run is charged only for the serials between its start marker and its
// end barrier; gaps outside are other processes' and are not waited for.
func TestGapTrackerChargesOnlyTheWindow(t *testing.T) {
	t0 := time.Unix(100, 0)
	g := started(10, t0)
	for _, s := range []uint64{11, 13, 20, 25, 31} { // 12, 14-19, 21-24, 26-30 missing
		g.Observe(s, t0)
	}
	g.Observe(22, t0)
	// The run's window is (20, 31): 21, 23, 24, 26-30 are its business;
	// 12 and 14-19 are not, and a run does not wait for them.
	for _, s := range []uint64{21, 23, 24, 26, 27, 28, 29, 30} {
		g.Observe(s, t0)
	}
	if ok, _ := g.SettledBetween(20, 31); !ok {
		t.Errorf("the window waits for serials outside it")
	}
	if ok, _ := g.SettledBetween(10, 31); ok {
		t.Errorf("a window over 12-19 is settled with them pending")
	}
	g.Expire(t0.Add(2 * time.Second))
	if n, ranges, exact := g.LostIn(20, 31); n != 0 || ranges != nil || !exact {
		t.Errorf("LostIn(20, 31) = %d %v %v; want nothing", n, ranges, exact)
	}
	n, ranges, _ := g.LostIn(13, 18) // 14-17 of the lost 14-19
	if n != 4 || !slices.Equal(ranges, []SerialRange{{14, 17}}) {
		t.Errorf("LostIn(13, 18) = %d %v; want 14-17", n, ranges)
	}
	if n, _, _ := g.LostIn(11, 12); n != 0 {
		t.Errorf("an empty window lost %d", n)
	}
}

func TestGapTrackerNamesTheLostSerials(t *testing.T) {
	t0 := time.Unix(100, 0)
	g := started(10, t0)
	g.Observe(16, t0) // 11-15 missing
	g.Observe(13, t0) // late, not lost
	g.Expire(t0.Add(2 * time.Second))
	for _, s := range []uint64{18, 20} {
		g.Observe(s, t0.Add(3*time.Second))
	}
	g.Expire(t0.Add(5 * time.Second))
	g.Observe(20+maxPendingGap+2, t0.Add(5*time.Second)) // lost at once
	want := []SerialRange{{11, 12}, {14, 15}, {17, 17}, {19, 19}, {21, 21 + maxPendingGap}}
	if _, all, _ := g.LostIn(0, 1<<40); !slices.Equal(all, want) {
		t.Errorf("lost ranges %v, want %v", all, want)
	}
	if _, some, _ := g.LostIn(16, 20); !slices.Equal(some, want[2:4]) {
		t.Errorf("lost in (16, 20): %v, want %v", some, want[2:4])
	}
	// Past the bound the oldest ranges are forgotten, and a window they
	// may have reached into is no longer exact.
	for i := 0; i < maxKeptRanges; i++ {
		g.declareLost(uint64(1e9+2*i), uint64(1e9+2*i))
	}
	if _, _, exact := g.LostIn(5, 1e9); exact {
		t.Errorf("a window over forgotten ranges is exact")
	}
	if n, _, exact := g.LostIn(1e9+1, 1e9+4); !exact || n != 1 {
		t.Errorf("a window above the forgotten ranges: %d, exact %v; want 1, true", n, exact)
	}
}

// Serials remembered before Start are bounded; one forgotten shows as a
// gap after Start (a false alarm, never a missed loss).
func TestGapTrackerBoundsTheEarlySerials(t *testing.T) {
	t0 := time.Unix(100, 0)
	g := New(time.Second)
	for s := uint64(1); s <= maxEarly+1; s++ {
		g.Observe(s, t0)
	}
	g.Start(0, t0)
	g.Expire(t0.Add(2 * time.Second))
	if n, ranges, _ := g.LostIn(0, maxEarly+2); n != 0 || ranges != nil {
		// The last one was forgotten, but it is the highest seen, and
		// the gap below the next serial shows only when that arrives.
		t.Errorf("lost %d %v", n, ranges)
	}
	g.Observe(maxEarly+2, t0)
	g.Expire(t0.Add(4 * time.Second))
	if n, _, _ := g.LostIn(0, maxEarly+3); n != 1 {
		t.Errorf("the forgotten serial: lost %d, want 1", n)
	}
}
