package auditlog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/barrier"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/observe"
)

// Subscription receives the events of one audit session.
type Subscription struct {
	s     *Stream
	ses   uint32
	all   bool
	fn    func(*record.SeccompEvent)
	start counters
	// from is the highest serial the stream had seen when the
	// subscription opened, and mark the start marker fired then: every
	// record of a run started afterwards has a serial above both.
	from    uint64
	mark    *barrier.Waiter
	lost0   uint32
	statErr error
	events  atomic.Uint64
	closed  atomic.Bool
	// malformed counts the rejected seccomp records that may have been
	// this subscription's (chargeMalformed); the sample is the latest.
	malformed       atomic.Uint64
	malformedSample atomic.Pointer[string]
	// auid and raw: a SubscribeSyscallRecords subscription.
	auid uint32
	raw  func(typ uint16, data []byte)
}

// Subscribe delivers every event of audit session ses to fn, in record
// order, from the stream's dispatch goroutine: fn must be quick (a slow fn
// backs up the socket until the kernel drops records, which then shows as
// loss) and must not call Subscribe, Close or Barrier on the same stream
// (they wait for the dispatch goroutine). The loss counters are
// snapshotted and the run's start marker fired now, so subscribe before
// the tagged process starts: serial gaps count against the run only
// after the marker.
func (s *Stream) Subscribe(ses uint32, fn func(*record.SeccompEvent)) *Subscription {
	return s.subscribe(ses, false, fn)
}

// SubscribeAll delivers every seccomp event of every session (audit tail).
func (s *Stream) SubscribeAll(fn func(*record.SeccompEvent)) *Subscription {
	return s.subscribe(0, true, fn)
}

func (s *Stream) subscribe(ses uint32, all bool, fn func(*record.SeccompEvent)) *Subscription {
	sub := s.newSubscription(ses, all, fn)
	s.routesMu.Lock()
	if all {
		s.all = append(s.all, sub)
	} else {
		s.bySes[ses] = append(s.bySes[ses], sub)
	}
	s.routesMu.Unlock()
	return sub
}

// newSubscription snapshots the loss counters and fires the start
// marker; the caller routes it.
func (s *Stream) newSubscription(ses uint32, all bool, fn func(*record.SeccompEvent)) *Subscription {
	sub := &Subscription{s: s, ses: ses, all: all, fn: fn, start: s.counters(), from: s.gaps.Highest()}
	st, err := auditctl.ReadStatus()
	sub.lost0, sub.statErr = st.Lost, err
	mark, markErr := s.sentinels.Mark(!s.suppressSentinel.Load())
	if markErr != nil {
		sub.statErr = errors.Join(sub.statErr, fmt.Errorf("audit start marker: %w", markErr))
	}
	sub.mark = mark
	return sub
}

// window is the serials that can hold the run's records: strictly
// between its start marker (or, if that record never arrived, the
// highest serial seen at subscription) and end, the closing barrier's
// sentinel. Called after the barrier, so the start marker, queued
// before it, has arrived if it ever will.
func (sub *Subscription) window(end uint64) (lo, hi uint64) {
	lo = sub.from
	if sub.mark != nil {
		select {
		case <-sub.mark.Done():
			lo = max(lo, sub.mark.Serial())
		default:
		}
		sub.s.sentinels.Unregister(sub.mark)
	}
	return lo, end
}

func (sub *Subscription) deliver(ev *record.SeccompEvent) {
	sub.events.Add(1)
	sub.fn(ev)
}

// Events returns how many events were delivered so far.
func (sub *Subscription) Events() uint64 { return sub.events.Load() }

// Close waits until every record emitted before the call has been
// received (the barrier), unsubscribes and returns what may have been lost
// during the subscription. A non-nil error (barrier timeout, status
// unreadable) or a Loss with Any() means the run is inconclusive. After
// Close returns, fn is not called again.
func (sub *Subscription) Close(ctx context.Context) (Loss, error) {
	if sub.closed.Swap(true) {
		return Loss{}, errors.New("audit subscription closed twice")
	}
	s := sub.s
	serial, err := s.BarrierSerial(ctx)
	lo, hi := sub.window(serial)
	if err == nil {
		err = s.settleGaps(ctx, lo, hi)
	}
	s.unsubscribe(sub)
	end := s.counters()
	loss := Loss{ENOBUFS: end.enobufs - sub.start.enobufs}
	loss.SerialGaps, loss.GapSerials = sub.gapsIn(lo, hi, end.gaps-sub.start.gaps)
	if since := end.gaps - sub.start.gaps; since > loss.SerialGaps {
		loss.OtherGaps = since - loss.SerialGaps
	}
	if loss.Malformed = sub.malformed.Load(); loss.Malformed > 0 {
		if p := sub.malformedSample.Load(); p != nil {
			loss.MalformedSample = *p
		}
	}
	st, stErr := auditctl.ReadStatus()
	// A reader error (never seen in practice) may have cost records.
	err = errors.Join(err, sub.statErr, stErr, s.Err())
	if sub.statErr == nil && stErr == nil {
		// uint32 arithmetic: a wrapped counter still gives the delta; a
		// reset (auditctl --reset-lost) gives a huge one, failing closed.
		loss.KernelLost = uint64(st.Lost - sub.lost0)
	}
	return loss, err
}

func (s *Stream) unsubscribe(sub *Subscription) {
	s.routesMu.Lock()
	defer s.routesMu.Unlock()
	del := func(l []*Subscription) []*Subscription {
		return slices.DeleteFunc(l, func(x *Subscription) bool { return x == sub })
	}
	if sub.all {
		s.all = del(s.all)
		return
	}
	if sub.raw != nil {
		s.auidSubs.Add(-1)
		if l := del(s.byAUID[sub.auid]); len(l) > 0 {
			s.byAUID[sub.auid] = l
		} else {
			delete(s.byAUID, sub.auid)
		}
		return
	}
	if l := del(s.bySes[sub.ses]); len(l) > 0 {
		s.bySes[sub.ses] = l
	} else {
		delete(s.bySes, sub.ses)
	}
}

// gapsIn is the serials lost inside the run's window (lo, hi), and the
// latest of their ranges to name; all the serials lost while the
// subscription was open (since) if the window's could not be counted
// exactly, or if the barrier failed (hi 0).
func (sub *Subscription) gapsIn(lo, hi, since uint64) (uint64, []observe.SerialRange) {
	n, ranges, exact := sub.s.gaps.LostIn(lo, hi)
	if !exact || hi == 0 {
		n = since
	}
	if len(ranges) > maxNamedGaps {
		ranges = ranges[len(ranges)-maxNamedGaps:]
	}
	named := make([]observe.SerialRange, len(ranges))
	for i, r := range ranges {
		named[i] = observe.SerialRange{Lo: r.Lo, Hi: r.Hi}
	}
	return n, named
}

// maxNamedGaps bounds the lost ranges a report names.
const maxNamedGaps = 16

// settleGaps waits until every serial of the window (lo, hi) has arrived
// or been declared lost, so a gap detected before the barrier is counted
// now. Serials outside it are not the run's: a gap there is not waited
// for.
func (s *Stream) settleGaps(ctx context.Context, lo, hi uint64) error {
	for {
		ok, changed := s.gaps.SettledBetween(lo, hi)
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-s.dispDone:
			return ErrClosed
		}
	}
}
