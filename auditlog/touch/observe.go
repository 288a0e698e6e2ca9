package touch

import (
	"context"
	"errors"
	"fmt"

	"github.com/sysgate/sysgate/auditlog"
)

// Observation is one run's Events, read from a Stream.
type Observation struct {
	sub *auditlog.Subscription
	asm *Assembler
}

// Observe delivers the Events of processes with login uid auid to emit,
// from the stream's dispatch goroutine (emit must be quick). Subscribe
// before the run starts; Install the rules for auid as well.
func Observe(s *auditlog.Stream, auid uint32, emit func(Event)) *Observation {
	o := &Observation{asm: NewAssembler(emit)}
	o.sub = s.SubscribeSyscallRecords(auid, func(typ uint16, data []byte) {
		_ = o.asm.Push(typ, data) // counted by the Assembler
	})
	return o
}

// ErrUnreadable: syscall records of the run could not be parsed; what
// they held is unknown, so the run is inconclusive.
var ErrUnreadable = errors.New("unreadable audit syscall records")

// Close waits for every record emitted before the call (the stream's
// barrier), completes the events still held and returns the loss as
// auditlog's Subscription.Close does. Records that could not be parsed
// give an error matching ErrUnreadable. Either makes the run
// inconclusive.
func (o *Observation) Close(ctx context.Context) (auditlog.Loss, error) {
	loss, err := o.sub.Close(ctx)
	// After Close the dispatch goroutine calls Push no more.
	o.asm.Close()
	if n := o.asm.Malformed(); n > 0 {
		err = errors.Join(err, fmt.Errorf("%w: %d (latest: %v)", ErrUnreadable, n, o.asm.Err()))
	}
	return loss, err
}
