package touch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sysgate/sysgate/auditlog"
)

// Observation is one run's Events, read from a Stream.
type Observation struct {
	sub  *auditlog.Subscription
	asm  *Assembler
	mu   sync.Mutex
	q    []queued      // records copied off the dispatch goroutine
	wake chan struct{} // one token: q grew
	done chan struct{} // the parse goroutine ended
	shut bool
}

type queued struct {
	typ  uint16
	data []byte
}

// Observe delivers the Events of processes with login uid auid to emit,
// in serial order, from a goroutine of its own. Subscribe before the run
// starts; Install the rules for auid as well.
//
// The stream's dispatch goroutine only copies the records into a queue:
// parsing costs about 1 µs per record (docs/performance.md), and doing
// it there would hold up every other run's records on the same socket.
func Observe(s *auditlog.Stream, auid uint32, emit func(Event)) *Observation {
	o := &Observation{asm: NewAssembler(emit), wake: make(chan struct{}, 1), done: make(chan struct{})}
	o.sub = s.SubscribeSyscallRecords(auid, o.enqueue)
	go o.parse()
	return o
}

func (o *Observation) enqueue(typ uint16, data []byte) {
	o.mu.Lock()
	o.q = append(o.q, queued{typ, append([]byte(nil), data...)})
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *Observation) parse() {
	defer close(o.done)
	for {
		o.mu.Lock()
		batch, shut := o.q, o.shut
		o.q = nil
		o.mu.Unlock()
		for _, r := range batch {
			_ = o.asm.Push(r.typ, r.data) // counted by the Assembler
		}
		if shut && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			<-o.wake
		}
	}
}

// ErrUnreadable: syscall records of the run could not be parsed; what
// they held is unknown, so the run is inconclusive.
var ErrUnreadable = errors.New("unreadable audit syscall records")

// Close waits for every record emitted before the call (the stream's
// barrier) and for their events to be delivered, and returns the loss as
// auditlog's Subscription.Close does. Records that could not be parsed
// give an error matching ErrUnreadable. Either makes the run
// inconclusive. emit is not called after Close returns.
func (o *Observation) Close(ctx context.Context) (auditlog.Loss, error) {
	loss, err := o.sub.Close(ctx)
	// After sub.Close the dispatch goroutine enqueues no more.
	o.mu.Lock()
	o.shut = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.done
	o.asm.Close()
	if n := o.asm.Malformed(); n > 0 {
		err = errors.Join(err, fmt.Errorf("%w: %d (latest: %v)", ErrUnreadable, n, o.asm.Err()))
	}
	return loss, err
}
