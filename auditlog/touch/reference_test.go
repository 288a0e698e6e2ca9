package touch

// The parser this package used before its own: go-libaudit's auparse
// and Reassembler, kept as the reference the differential tests hold the
// Assembler to.

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	libaudit "github.com/elastic/go-libaudit/v2"
	"github.com/elastic/go-libaudit/v2/auparse"
)

type refAssembler struct {
	r         *libaudit.Reassembler
	emit      func(Event)
	malformed atomic.Uint64
	lastErr   atomic.Pointer[error]
}

// newRefAssembler delivers each complete event to emit, in serial order,
// from the goroutine that calls Push, Maintain or Close.
func newRefAssembler(emit func(Event)) *refAssembler {
	a := &refAssembler{emit: emit}
	// NewReassembler fails only for a nil stream.
	a.r, _ = libaudit.NewReassembler(maxInFlight, eventTimeout, (*refStream)(a))
	return a
}

// Push adds one record. PROCTITLE is dropped unparsed: the Event does
// not use it, and it is the longest record of every event. data is not
// kept.
func (a *refAssembler) Push(typ uint16, data []byte) error {
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
func (a *refAssembler) Maintain() { _ = a.r.Maintain() }

// Close completes every event still held.
func (a *refAssembler) Close() { _ = a.r.Close() }

// Malformed counts records or events that could not be read, and Err
// returns the latest reason: a run with any is inconclusive (a missed
// event may have been a violation).
func (a *refAssembler) Malformed() uint64 { return a.malformed.Load() }

// Err returns the latest parse error, or nil.
func (a *refAssembler) Err() error {
	if p := a.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (a *refAssembler) fail(err error) {
	a.malformed.Add(1)
	a.lastErr.Store(&err)
}

// refStream is the refAssembler as go-libaudit's Stream interface.
type refStream refAssembler

func (s *refStream) ReassemblyComplete(msgs []*auparse.AuditMessage) {
	a := (*refAssembler)(s)
	if !refHasSyscall(msgs) {
		return // a lone record of its own serial (LOGIN, ...): no call
	}
	ev, err := refEvent(msgs)
	if err != nil {
		a.fail(err)
		return
	}
	a.emit(ev)
}

func (s *refStream) EventsLost(int) {}

func refHasSyscall(msgs []*auparse.AuditMessage) bool {
	for _, m := range msgs {
		if m.RecordType == auparse.AUDIT_SYSCALL {
			return true
		}
	}
	return false
}

// refEvent builds an Event from the messages of one serial. Messages of
// types it does not use (PROCTITLE, EOE, the LOGIN record of a loginuid
// write) are skipped.
func refEvent(msgs []*auparse.AuditMessage) (Event, error) {
	var ev Event
	var syscallSeen bool
	var oflag string
	for _, m := range msgs {
		switch m.RecordType {
		case auparse.AUDIT_SYSCALL:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.Serial = uint64(m.Sequence)
			if err := ev.refFillSyscall(d); err != nil {
				return ev, fmt.Errorf("audit event %d: %w", m.Sequence, err)
			}
			syscallSeen = true
		case auparse.AUDIT_CWD:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.CWD = d["cwd"]
		case auparse.AUDIT_PATH:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.Paths = append(ev.Paths, refPathOf(d))
		case auparse.AUDIT_SOCKADDR:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.Addr = refSockaddrOf(d)
		case auparse.AUDIT_OPENAT2:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			oflag = d["oflag"]
		}
	}
	if !syscallSeen {
		return ev, fmt.Errorf("audit event without a SYSCALL record (%d records)", len(msgs))
	}
	v, _ := strconv.ParseUint(oflag, 8, 64) // printed as 0%llo
	ev.Flags = ev.openFlags(v)
	ev.makeAbs()
	return ev, nil
}

func (ev *Event) refFillSyscall(d map[string]string) error {
	var errs []string
	num := func(key string, base, bits int) uint64 {
		v, err := strconv.ParseUint(d[key], base, bits)
		if err != nil {
			errs = append(errs, key)
		}
		return v
	}
	ev.Session = uint32(num("ses", 10, 32))
	ev.AUID = uint32(num("auid", 10, 32))
	ev.PID = int(num("pid", 10, 31))
	ev.PPID = int(num("ppid", 10, 31))
	ev.UID = uint32(num("uid", 10, 32))
	for i := range ev.Args {
		ev.Args[i] = num("a"+strconv.Itoa(i), 16, 64)
	}
	exit, err := strconv.ParseInt(d["exit"], 10, 64)
	switch {
	case d["success"] == "no" || d["result"] == "fail":
		// success=1 rules never record a failed call; another part of the
		// kernel did (a Landlock denial logs its SYSCALL record): the
		// call did not happen. auparse names its errno (EACCES, ...).
		ev.Failed = true
		if err != nil {
			exit = -1
			ev.Errno = errnoByName(d["exit"])
		} else if exit < 0 {
			ev.Errno = int(-exit)
		}
	case err != nil:
		errs = append(errs, "exit")
	}
	ev.Exit = exit
	ev.Comm, ev.Exe, ev.Arch, ev.Syscall = d["comm"], d["exe"], d["arch"], d["syscall"]
	if ev.Syscall == "" || ev.Arch == "" {
		errs = append(errs, "syscall/arch")
	}
	if len(errs) > 0 {
		return fmt.Errorf("bad %s", strings.Join(errs, ", "))
	}
	return nil
}

func refPathOf(d map[string]string) Path {
	p := Path{Name: d["name"], NameType: d["nametype"], Dev: d["dev"]}
	if p.Name == "(null)" {
		p.Name = ""
	}
	p.Inode, _ = strconv.ParseUint(d["inode"], 10, 64)
	mode, _ := strconv.ParseUint(d["mode"], 8, 32)
	p.Mode = uint32(mode)
	return p
}

func refSockaddrOf(d map[string]string) *Sockaddr {
	s := &Sockaddr{Family: d["family"], Path: d["path"]}
	switch s.Family {
	case "ipv4":
		s.Family = "inet"
	case "ipv6":
		s.Family = "inet6"
	case "local":
		s.Family = "unix"
	}
	if a, err := netip.ParseAddr(d["addr"]); err == nil {
		s.Addr = a
	}
	if port, err := strconv.ParseUint(d["port"], 10, 16); err == nil {
		s.Port = uint16(port)
	}
	return s
}

// errnoByName is the number auparse's errno name stands for.
func errnoByName(name string) int {
	for i := 1; i < 4096; i++ {
		if unix.ErrnoName(syscall.Errno(i)) == name {
			return i
		}
	}
	return 0
}
