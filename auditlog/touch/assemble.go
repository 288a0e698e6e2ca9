package touch

import (
	"fmt"
	"sync/atomic"
	"time"

	libaudit "github.com/elastic/go-libaudit/v2"
	"github.com/elastic/go-libaudit/v2/auparse"
)

// Assembler turns the raw records of syscall events (as
// auditlog.Stream.SubscribeSyscallRecords delivers them) into Events,
// with go-libaudit's auparse and Reassembler. Records of one event share
// a serial and end with an EOE record; an event whose EOE never comes is
// completed after a timeout or at Close.
//
// Loss is not counted here: the Reassembler's gap count sees only the
// records routed to one run, so it would call every other process's
// serials lost. The stream's loss accounting (auditlog.Loss) covers the
// socket and the kernel for every record type.
type Assembler struct {
	r         *libaudit.Reassembler
	emit      func(Event)
	malformed atomic.Uint64
	lastErr   atomic.Pointer[error]
}

// maxInFlight bounds the events held while their EOE is outstanding;
// an agent's calls interleave across CPUs, rarely more than a few.
const maxInFlight = 1024

// eventTimeout completes an event without its EOE (never seen here: the
// kernel emits the records of one event back to back).
const eventTimeout = 2 * time.Second

// NewAssembler delivers each complete event to emit, in serial order,
// from the goroutine that calls Push, Maintain or Close.
func NewAssembler(emit func(Event)) *Assembler {
	a := &Assembler{emit: emit}
	// NewReassembler fails only for a nil stream.
	a.r, _ = libaudit.NewReassembler(maxInFlight, eventTimeout, (*assemblerStream)(a))
	return a
}

// Push adds one record. PROCTITLE is dropped unparsed: the Event does
// not use it, and it is the longest record of every event. data is not
// kept.
func (a *Assembler) Push(typ uint16, data []byte) error {
	if typ == uint16(auparse.AUDIT_PROCTITLE) {
		return nil
	}
	msg, err := auparse.Parse(auparse.AuditMessageType(typ), string(data))
	if err != nil {
		a.fail(fmt.Errorf("audit record type %d: %w", typ, err))
		return err
	}
	a.r.PushMessage(msg)
	return nil
}

// Maintain completes events that waited longer than the timeout.
func (a *Assembler) Maintain() { _ = a.r.Maintain() }

// Close completes every event still held.
func (a *Assembler) Close() { _ = a.r.Close() }

// Malformed counts records or events that could not be read, and Err
// returns the latest reason: a run with any is inconclusive (a missed
// event may have been a violation).
func (a *Assembler) Malformed() uint64 { return a.malformed.Load() }

// Err returns the latest parse error, or nil.
func (a *Assembler) Err() error {
	if p := a.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (a *Assembler) fail(err error) {
	a.malformed.Add(1)
	a.lastErr.Store(&err)
}

// assemblerStream is the Assembler as go-libaudit's Stream interface.
type assemblerStream Assembler

func (s *assemblerStream) ReassemblyComplete(msgs []*auparse.AuditMessage) {
	a := (*Assembler)(s)
	if !hasSyscall(msgs) {
		return // a lone record of its own serial (LOGIN, ...): no call
	}
	ev, err := newEvent(msgs)
	if err != nil {
		a.fail(err)
		return
	}
	a.emit(ev)
}

func (s *assemblerStream) EventsLost(int) {}

func hasSyscall(msgs []*auparse.AuditMessage) bool {
	for _, m := range msgs {
		if m.RecordType == auparse.AUDIT_SYSCALL {
			return true
		}
	}
	return false
}
