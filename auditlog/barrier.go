package auditlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sysgate/sysgate/auditlog/auditctl"
)

// Barrier returns once every audit record emitted before the call has
// been received and dispatched (subscribers have seen their events).
func (s *Stream) Barrier(ctx context.Context) error {
	_, err := s.BarrierSerial(ctx)
	return err
}

// BarrierSerial is Barrier returning the sentinel record's serial. It
// launches a sentinel (package barrier) and waits for its record, trying
// another after BarrierTimeout, up to BarrierAttempts times.
func (s *Stream) BarrierSerial(ctx context.Context) (uint64, error) {
	w := s.sentinels.Register()
	defer s.sentinels.Unregister(w)
	for attempt := 0; attempt < s.opts.BarrierAttempts; attempt++ {
		if err := s.sentinels.Launch(!s.suppressSentinel.Load()); err != nil {
			return 0, fmt.Errorf("audit barrier sentinel: %w", err)
		}
		t := time.NewTimer(s.opts.BarrierTimeout)
		select {
		case <-w.Done():
			t.Stop()
			if w.Serial() == 0 {
				return 0, ErrClosed
			}
			return w.Serial(), nil
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("audit barrier: %w", context.Cause(ctx))
		case <-s.dispDone:
			t.Stop()
			return 0, ErrClosed
		case <-t.C:
		}
	}
	err := fmt.Errorf("%w: no sentinel record after %d attempts of %v", ErrBarrierTimeout, s.opts.BarrierAttempts, s.opts.BarrierTimeout)
	// Explain the timeout when seccomp's log action is not logged.
	if _, why := auditctl.CheckActionsLogged(); errors.Is(why, auditctl.ErrActionNotLogged) {
		return 0, errors.Join(why, err)
	}
	return 0, err
}
