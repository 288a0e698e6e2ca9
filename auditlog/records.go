package auditlog

import "bytes"

// Record types of one audited syscall: they share the event's serial and
// only SYSCALL names the process (auid, ses), so the others are routed by
// the serial their SYSCALL record was routed by. EOE ends the event.
const (
	TypeSyscall   = 1300
	TypePath      = 1302
	TypeSockaddr  = 1306
	TypeCWD       = 1307
	TypeEOE       = 1320
	TypeProctitle = 1327
	TypeOpenat2   = 1337
)

// maxOpenEvents bounds the serials waiting for their EOE. An event whose
// EOE never comes (a record lost) would otherwise be kept forever; past
// the bound the oldest routes are dropped, and the loss counters already
// mark such a run.
const maxOpenEvents = 4096

func isSyscallEventType(typ uint16) bool {
	switch typ {
	case TypeSyscall, TypePath, TypeSockaddr, TypeCWD, TypeEOE, TypeProctitle, TypeOpenat2:
		return true
	}
	return false
}

// SubscribeSyscallRecords delivers the raw records (SYSCALL, PATH, CWD,
// SOCKADDR, OPENAT2, PROCTITLE, EOE) of every syscall event of processes
// with login uid auid, in arrival order, from the dispatch goroutine, with
// the same rules as Subscribe (data is valid only during the call; fn
// must be quick). Audit syscall rules for auid must exist (package
// auditlog/touch); Close runs the barrier and reports loss as for
// Subscribe.
func (s *Stream) SubscribeSyscallRecords(auid uint32, fn func(typ uint16, data []byte)) *Subscription {
	sub := s.newSubscription(0, false, nil)
	sub.auid, sub.raw = auid, fn
	s.routesMu.Lock()
	s.byAUID[auid] = append(s.byAUID[auid], sub)
	s.auidSubs.Add(1)
	s.routesMu.Unlock()
	return sub
}

// routeSyscallRecord hands a record of a syscall event to the auid's
// subscribers. Called by the dispatch goroutine only.
func (s *Stream) routeSyscallRecord(typ uint16, serial uint64, data []byte) {
	if typ == TypeSyscall {
		auid, ok := fieldU32(data, " auid=")
		if !ok {
			return
		}
		s.routesMu.RLock()
		subs := s.byAUID[auid]
		s.routesMu.RUnlock()
		if len(subs) == 0 {
			return
		}
		if len(s.openEvents) >= maxOpenEvents {
			clear(s.openEvents)
		}
		s.openEvents[serial] = auid
	}
	auid, ok := s.openEvents[serial]
	if !ok {
		return
	}
	if typ == TypeEOE {
		delete(s.openEvents, serial)
	}
	s.routesMu.RLock()
	defer s.routesMu.RUnlock()
	for _, sub := range s.byAUID[auid] {
		sub.events.Add(1)
		sub.raw(typ, data)
	}
}

// fieldU32 finds key (" name=") in a record and reads its decimal value.
func fieldU32(data []byte, key string) (uint32, bool) {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return 0, false
	}
	v := data[i+len(key):]
	end := bytes.IndexByte(v, ' ')
	if end >= 0 {
		v = v[:end]
	}
	if len(v) == 0 || len(v) > 10 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return uint32(n), n <= 0xffffffff
}
