package touch

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Assembler turns the raw records of syscall events (as
// auditlog.Stream.SubscribeSyscallRecords delivers them) into Events.
// Records of one event share a serial and end with an EOE record; an
// event whose EOE never comes is completed when more than maxInFlight
// wait, after a timeout (checked as records arrive and at Maintain), or
// at Close.
//
// Its parser reads only the record types and fields an Event uses and
// gives the same Events and the same malformed verdicts as go-libaudit's
// auparse and Reassembler, which it replaced for speed (the differential
// tests hold it to that; docs/performance.md has the numbers).
//
// Loss is not counted here: serial gaps within one run's records are
// every other process's serials. The stream's loss accounting
// (auditlog.Loss) covers the socket and the kernel for every record type.
type Assembler struct {
	l         *inflight
	d         *decoder
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
	return &Assembler{l: newInflight(maxInFlight, eventTimeout), d: newDecoder(), emit: emit}
}

// Push adds one record. PROCTITLE is dropped unparsed: the Event does
// not use it, and it is the longest record of every event. data is not
// kept. A record whose header cannot be read is counted as malformed
// and returned as an error.
func (a *Assembler) Push(typ uint16, data []byte) error {
	if typ == typeProctitle {
		return nil
	}
	seq, body, err := header(data)
	if err != nil {
		err = fmt.Errorf("audit record type %d: %w", typ, err)
		a.fail(err)
		return err
	}
	if p := a.l.add(typ, seq); p != nil {
		a.d.decode(p, body)
		if p.typ == typeSyscall {
			p.sys.serial = seq
		}
	}
	a.flush(false)
	return nil
}

// Maintain completes events that waited longer than the timeout.
func (a *Assembler) Maintain() { a.flush(false) }

// Close completes every event still held.
func (a *Assembler) Close() { a.flush(true) }

func (a *Assembler) flush(all bool) {
	for e := a.l.next(all); e != nil; e = a.l.next(all) {
		if e.syscall { // else a lone record of its own serial (LOGIN, ...): no call
			if ev, err := buildEvent(e.parts); err != nil {
				a.fail(err)
			} else {
				a.emit(ev)
			}
		}
		a.l.put(e)
	}
}

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

// buildEvent folds an event's parts in arrival order: the last SYSCALL,
// CWD, SOCKADDR and OPENAT2 records win, PATH records add up, and the
// first unreadable record makes the event malformed.
func buildEvent(parts []part) (Event, error) {
	var ev Event
	var oflag uint64
	nPaths := 0
	for i := range parts {
		if parts[i].typ == typePath {
			nPaths++
		}
	}
	if nPaths > 0 {
		ev.Paths = make([]Path, 0, nPaths) // counted first: one allocation
	}
	for i := range parts {
		p := &parts[i]
		if p.err != nil {
			return ev, fmt.Errorf("audit record type %d: %w", p.typ, p.err)
		}
		switch p.typ {
		case typeSyscall:
			s := &p.sys
			ev.Serial, ev.Session, ev.AUID, ev.PID, ev.PPID, ev.UID = uint64(s.serial), s.ses, s.auid, s.pid, s.ppid, s.uid
			ev.Args, ev.Exit, ev.Errno, ev.Failed = s.args, s.exit, s.errno, ev.Failed || s.failed
			ev.Comm, ev.Exe, ev.Arch, ev.Syscall = s.comm, s.exe, s.arch, s.sys
		case typeCWD:
			ev.CWD = p.cwd
		case typePath:
			ev.Paths = append(ev.Paths, p.path)
		case typeSockaddr:
			ev.Addr = p.addr
		case typeOpenat2:
			oflag = p.oflag
		}
	}
	ev.Flags = ev.openFlags(oflag)
	ev.makeAbs()
	return ev, nil
}
