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
	max     uint64              // highest serial seen; 0 before the first record
	pending map[uint64]struct{} // serials still missing
	queue   []gapRange          // the gaps in serial (and so detection) order
	lost    uint64              // serials declared lost
	changed chan struct{}       // closed and replaced whenever pending shrinks
}

// gapRange is one run of missing serials and when it was seen.
type gapRange struct {
	lo, hi uint64
	seen   time.Time
}

// A jump this large is not reordering: count it lost at once instead of
// remembering every missing serial.
const maxPendingGap = 1 << 16

func newGapTracker(grace time.Duration) *gapTracker {
	return &gapTracker{grace: grace, pending: map[uint64]struct{}{}, changed: make(chan struct{})}
}

// observe records serial s, seen at now. The caller holds mu.
func (g *gapTracker) observe(s uint64, now time.Time) {
	switch {
	case g.max == 0:
		g.max = s
	case s > g.max:
		if missing := s - g.max - 1; missing > maxPendingGap {
			g.lost += missing
		} else if missing > 0 {
			for m := g.max + 1; m < s; m++ {
				g.pending[m] = struct{}{}
			}
			g.queue = append(g.queue, gapRange{g.max + 1, s - 1, now})
		}
		g.max = s
	case s < g.max:
		if _, ok := g.pending[s]; ok {
			delete(g.pending, s)
			g.signal()
		}
	}
}

// expire declares serials missing for longer than grace lost. The caller
// holds mu.
func (g *gapTracker) expire(now time.Time) {
	n := 0
	for len(g.queue) > 0 && now.Sub(g.queue[0].seen) >= g.grace {
		r := g.queue[0]
		for m := r.lo; m <= r.hi; m++ {
			if _, ok := g.pending[m]; ok {
				delete(g.pending, m)
				n++
			}
		}
		g.queue = g.queue[1:]
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
	for len(g.queue) > 0 {
		r := &g.queue[0]
		for r.lo <= r.hi {
			if _, ok := g.pending[r.lo]; ok {
				break
			}
			r.lo++
		}
		if r.lo <= r.hi {
			break
		}
		g.queue = g.queue[1:]
	}
	if len(g.queue) == 0 || g.queue[0].lo >= s {
		return true, nil
	}
	return false, g.changed
}

func (g *gapTracker) lostCount() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost
}
