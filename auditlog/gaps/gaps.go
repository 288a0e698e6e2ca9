package gaps

import (
	"slices"
	"sync"
	"time"
)

// Tracker finds audit serial numbers that never arrive. Records can be
// queued slightly out of serial order (the serial is taken when a record
// starts, it is queued when it ends, on any CPU), and several records of
// one event share a serial, so a missing serial is only pending at first:
// it is declared lost when it is still missing after grace.
//
// What leaves a gap: a record the kernel dropped after it took its serial
// (the rate limit drops in __audit_log_end; that also moves the status
// lost counter), one the socket overran (ENOBUFS), one kauditd failed to
// copy for multicast. Records dropped at the backlog limit never got a
// serial and leave none: only the lost counter tells.
type Tracker struct {
	mu      sync.Mutex
	grace   time.Duration
	started bool
	highest uint64              // highest serial seen, before Start too
	early   map[uint64]struct{} // serials seen before Start
	max     uint64              // highest serial counted from; set by Start
	pending map[uint64]struct{} // serials still missing
	queue   []gapRange          // the gaps in serial (and so detection) order
	lost    uint64              // serials declared lost
	ranges  []SerialRange       // the lost ranges, in declaration order
	forgot  uint64              // highest Hi of a lost range no longer kept
	changed chan struct{}       // closed and replaced whenever pending shrinks
}

// SerialRange is a run of audit serial numbers, Lo to Hi inclusive (a
// run's report names them as verdict.SerialRange).
type SerialRange struct{ Lo, Hi uint64 }

// maxKeptRanges bounds the lost ranges kept for LostIn. A run whose
// window a forgotten range may have touched is charged every serial lost
// while it was open (LostIn's exact is false).
const maxKeptRanges = 4096

// maxEarly bounds the serials remembered before Start. One beyond it is
// forgotten, so Start sees it as missing: a false gap, never a missed one.
const maxEarly = 1 << 16

// declareLost counts lo..hi as lost and remembers the range. The caller
// holds mu.
func (g *Tracker) declareLost(lo, hi uint64) {
	g.lost += hi - lo + 1
	g.ranges = append(g.ranges, SerialRange{lo, hi})
	if len(g.ranges) > maxKeptRanges {
		g.forgot = max(g.forgot, g.ranges[0].Hi)
		g.ranges = g.ranges[1:]
	}
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
// missing for grace. It counts nothing before Start.
func New(grace time.Duration) *Tracker {
	return &Tracker{grace: grace, early: map[uint64]struct{}{}, pending: map[uint64]struct{}{}, changed: make(chan struct{})}
}

// Start makes s0, the serial of a record known to have been taken after
// the socket joined, the origin: serials at or below it are never
// counted, every one above it must arrive. Serials above s0 seen before
// the call (their records overtook s0's in the queue) are counted as
// arrived. Only the first call counts.
func (g *Tracker) Start(s0 uint64, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started {
		return
	}
	g.started, g.max = true, s0
	var after []uint64
	for s := range g.early {
		if s > s0 {
			after = append(after, s)
		}
	}
	g.early = nil
	slices.Sort(after)
	for _, s := range after {
		g.observe(s, now)
	}
}

// Started reports whether Start was called.
func (g *Tracker) Started() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started
}

// Highest returns the highest serial seen so far (0 if none). Every
// serial the kernel hands out from now on is above it.
func (g *Tracker) Highest() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.highest
}

// Observe records serial s, seen at now.
func (g *Tracker) Observe(s uint64, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.highest = max(g.highest, s)
	if !g.started {
		if len(g.early) < maxEarly {
			g.early[s] = struct{}{}
		}
		return
	}
	g.observe(s, now)
}

// observe counts s after Start. The caller holds mu.
func (g *Tracker) observe(s uint64, now time.Time) {
	switch {
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

// SettledBetween reports whether no serial strictly between lo and hi is
// pending; if not, it returns a channel that is closed on the next
// change. Pending serials outside (a run's window) are not waited for.
func (g *Tracker) SettledBetween(lo, hi uint64) (bool, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dropArrived()
	for _, r := range g.queue {
		if r.lo >= hi {
			break
		}
		for m := max(r.lo, lo+1); m <= r.hi && m < hi; m++ {
			if _, ok := g.pending[m]; ok {
				return false, g.changed
			}
		}
	}
	return true, nil
}

// dropArrived forgets the leading gap ranges whose serials all arrived.
// The caller holds mu.
func (g *Tracker) dropArrived() {
	for len(g.queue) > 0 {
		r := &g.queue[0]
		for r.lo <= r.hi {
			if _, ok := g.pending[r.lo]; ok {
				return
			}
			r.lo++
		}
		g.queue = g.queue[1:]
	}
}

// LostCount returns how many serials were declared lost so far.
func (g *Tracker) LostCount() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost
}

// LostIn returns how many serials strictly between lo and hi were
// declared lost, and those ranges (clipped to the window) in declaration
// order. exact is false when a range that may have reached into the
// window is no longer kept: the caller must then assume more was lost.
func (g *Tracker) LostIn(lo, hi uint64) (n uint64, ranges []SerialRange, exact bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	exact = g.forgot <= lo
	if hi <= lo+1 {
		return 0, nil, exact
	}
	for _, r := range g.ranges {
		a, b := max(r.Lo, lo+1), min(r.Hi, hi-1)
		if a > b {
			continue
		}
		n += b - a + 1
		ranges = append(ranges, SerialRange{a, b})
	}
	return n, ranges, exact
}
