package auditlog

import (
	"sync"
	"time"
)

// gapTracker finds audit serial numbers that never arrive. Records can be
// queued slightly out of serial order (the serial is taken when a record
// starts, it is queued when it ends, on any CPU), and several records of
// one event share a serial, so a missing serial is only pending at first:
// it is declared lost when it is still missing after grace. Records the
// kernel drops before they get a serial (backlog, rate limit) leave no gap;
// the status lost counter covers those.
type gapTracker struct {
	mu      sync.Mutex
	grace   time.Duration
	max     uint64               // highest serial seen; 0 before the first record
	pending map[uint64]time.Time // missing serial -> when the gap was seen
	lost    uint64               // serials declared lost
	changed chan struct{}        // closed and replaced whenever pending shrinks
}

// A jump this large is not reordering: count it lost at once instead of
// remembering every missing serial.
const maxPendingGap = 1 << 16

func newGapTracker(grace time.Duration) *gapTracker {
	return &gapTracker{grace: grace, pending: map[uint64]time.Time{}, changed: make(chan struct{})}
}

// observe records serial s, seen at now. The caller holds mu.
func (g *gapTracker) observe(s uint64, now time.Time) {
	switch {
	case g.max == 0:
		g.max = s
	case s > g.max:
		if missing := s - g.max - 1; missing > maxPendingGap {
			g.lost += missing
		} else {
			for m := g.max + 1; m < s; m++ {
				g.pending[m] = now
			}
		}
		g.max = s
	case s < g.max:
		if _, ok := g.pending[s]; ok {
			delete(g.pending, s)
			g.signal()
		}
	}
}

// expire declares pending serials older than grace lost. The caller holds mu.
func (g *gapTracker) expire(now time.Time) {
	n := 0
	for s, seen := range g.pending {
		if now.Sub(seen) >= g.grace {
			delete(g.pending, s)
			n++
		}
	}
	if n > 0 {
		g.lost += uint64(n)
		g.signal()
	}
}

func (g *gapTracker) signal() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// settledBelow reports whether no serial below s is pending; if not, it
// returns a channel that is closed on the next change.
func (g *gapTracker) settledBelow(s uint64) (bool, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for m := range g.pending {
		if m < s {
			return false, g.changed
		}
	}
	return true, nil
}

func (g *gapTracker) lostCount() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost
}

func (g *gapTracker) hasPending() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending) > 0
}
