package touch

import (
	"sort"
	"time"
)

// inflight holds the events whose records are still arriving, keyed by
// serial, with go-libaudit's Reassembler's rules (kept so that what a
// run reports does not change with the parser): an event is complete
// at its EOE record, or at a record type outside the kernel's event
// range; the oldest event is also let go when more than maxInFlight
// wait or it waited eventTimeout. Events leave in serial order, oldest
// first (serials wrap: two more than 2^24 apart compare reversed). A
// record for a serial that already left starts a new event; an EOE for
// one is dropped.
type inflight struct {
	seqs    serials
	events  map[uint32]*pending
	free    []*pending
	max     int
	timeout time.Duration
}

// pending is one event's records so far.
type pending struct {
	parts    []part
	syscall  bool
	complete bool
	expire   time.Time
}

func newInflight(max int, timeout time.Duration) *inflight {
	return &inflight{events: map[uint32]*pending{}, max: max, timeout: timeout}
}

// add files a record of serial seq and returns the part to fill, nil
// for an EOE or a type the Event does not use.
func (l *inflight) add(typ uint16, seq uint32) *part {
	e, found := l.events[seq]
	if typ == typeEOE {
		if found {
			e.complete = true
		}
		return nil
	}
	if !found {
		l.seqs = append(l.seqs, seq)
		sort.Sort(&l.seqs)
		e = l.get()
		e.expire = time.Now().Add(l.timeout)
		l.events[seq] = e
	}
	// The Reassembler's rule: types up to AUDIT_LAST_DAEMON (1299) and
	// from AUDIT_ANOM_LOGIN_FAILURES (2100) stand alone.
	if typ <= 1299 || typ >= 2100 {
		e.complete = true
	}
	switch typ {
	case typeSyscall, typePath, typeCWD, typeSockaddr, typeOpenat2:
		e.syscall = e.syscall || typ == typeSyscall
		e.parts = append(e.parts, part{typ: typ})
		return &e.parts[len(e.parts)-1]
	}
	return nil
}

// next returns the oldest event if it may leave: complete, too many
// waiting, or expired (all when flush).
func (l *inflight) next(flush bool) *pending {
	if len(l.seqs) == 0 {
		return nil
	}
	e := l.events[l.seqs[0]]
	if flush || e.complete || len(l.seqs) > l.max || time.Now().After(e.expire) {
		delete(l.events, l.seqs[0])
		l.seqs = l.seqs[1:]
		return e
	}
	return nil
}

func (l *inflight) get() *pending {
	if n := len(l.free); n > 0 {
		e := l.free[n-1]
		l.free = l.free[:n-1]
		return e
	}
	return &pending{parts: make([]part, 0, 4)}
}

// put recycles an event once its Event has been built.
func (l *inflight) put(e *pending) {
	clear(e.parts)
	*e = pending{parts: e.parts[:0]}
	if len(l.free) < 64 {
		l.free = append(l.free, e)
	}
}

// serials sorts as the Reassembler's sequenceNumSlice does.
type serials []uint32

const maxSortRange = 1<<24 - 1

func (p *serials) Len() int      { return len(*p) }
func (p *serials) Swap(i, j int) { (*p)[i], (*p)[j] = (*p)[j], (*p)[i] }
func (p *serials) Less(i, j int) bool {
	a, b := (*p)[i], (*p)[j]
	d := int64(a) - int64(b)
	if d > maxSortRange || d < -maxSortRange {
		return a > b
	}
	return a < b
}
