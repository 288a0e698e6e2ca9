package gaps

import (
	"fmt"
	"sync"
	"time"
)

// Tracker finds audit serial numbers that never arrive. Records can be
// queued slightly out of serial order (the serial is taken when a record
// starts, it is queued when it ends, on any CPU), and several records of
// one event share a serial, so a missing serial is only pending at first:
// it is declared lost when it is still missing after grace. Records the
// kernel drops before they get a serial (backlog, rate limit) leave no gap;
// the status lost counter covers those.
type Tracker struct {
	mu      sync.Mutex
	grace   time.Duration
	max     uint64              // highest serial seen; 0 before the first record
	pending map[uint64]struct{} // serials still missing
	queue   []gapRange          // the gaps in serial (and so detection) order
	lost    uint64              // serials declared lost
	recent  []lostRange         // the latest lost serials, oldest first
	changed chan struct{}       // closed and replaced whenever pending shrinks
}

// SerialRange is a run of audit serial numbers, Lo to Hi inclusive.
type SerialRange struct {
	Lo uint64 `json:"lo"`
	Hi uint64 `json:"hi"`
}

func (r SerialRange) String() string {
	if r.Lo == r.Hi {
		return fmt.Sprint(r.Lo)
	}
	return fmt.Sprintf("%d-%d", r.Lo, r.Hi)
}

// lostRange is a SerialRange declared lost, with the lost count after it,
// so a subscription can pick the ones lost while it was open.
type lostRange struct {
	SerialRange
	upTo uint64
}

// maxRecentLost bounds the lost ranges kept for reports.
const maxRecentLost = 16

// declareLost counts lo..hi as lost and remembers the range. The caller
// holds mu.
func (g *Tracker) declareLost(lo, hi uint64) {
	g.lost += hi - lo + 1
	g.recent = append(g.recent, lostRange{SerialRange{lo, hi}, g.lost})
	if len(g.recent) > maxRecentLost {
		g.recent = g.recent[1:]
	}
}

// LostSince returns the remembered ranges declared lost after the lost
// count was from (a subscription's start), oldest first.
func (g *Tracker) LostSince(from uint64) []SerialRange {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []SerialRange
	for _, r := range g.recent {
		if r.upTo > from {
			out = append(out, r.SerialRange)
		}
	}
	return out
}

// gapRange is one run of missing serials and when it was seen.
type gapRange struct {
	lo, hi uint64
	seen   time.Time
}

// A jump this large is not reordering: count it lost at once instead of
// remembering every missing serial.
const maxPendingGap = 1 << 16

// New returns a Tracker that declares a serial lost once it has been
// missing for grace.
func New(grace time.Duration) *Tracker {
	return &Tracker{grace: grace, pending: map[uint64]struct{}{}, changed: make(chan struct{})}
}

// Observe records serial s, seen at now.
func (g *Tracker) Observe(s uint64, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.max == 0:
		g.max = s
	case s > g.max:
		if missing := s - g.max - 1; missing > maxPendingGap {
			g.declareLost(g.max+1, s-1)
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

// Expire declares serials missing for longer than grace lost.
func (g *Tracker) Expire(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for len(g.queue) > 0 && now.Sub(g.queue[0].seen) >= g.grace {
		r := g.queue[0]
		run := false // lo..m-1 are pending and go as one range
		var lo uint64
		for m := r.lo; m <= r.hi; m++ {
			if _, ok := g.pending[m]; ok {
				delete(g.pending, m)
				n++
				if !run {
					run, lo = true, m
				}
				continue
			}
			if run {
				g.declareLost(lo, m-1)
				run = false
			}
		}
		if run {
			g.declareLost(lo, r.hi)
		}
		g.queue = g.queue[1:]
	}
	if n > 0 {
		g.signal()
	}
}

func (g *Tracker) signal() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// SettledBelow reports whether no serial below s is pending; if not, it
// returns a channel that is closed on the next change.
func (g *Tracker) SettledBelow(s uint64) (bool, <-chan struct{}) {
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

// LostCount returns how many serials were declared lost so far.
func (g *Tracker) LostCount() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost
}
