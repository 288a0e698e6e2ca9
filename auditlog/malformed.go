package auditlog

import "github.com/sysgate/sysgate/auditlog/record"

// maxMalformedSample bounds the sample of a rejected record in reports.
const maxMalformedSample = 512

// chargeMalformed counts a seccomp record the parser rejected as loss of
// the subscriptions it may belong to: those of its session when the
// kernel-written session id reads (record.Session), else every open one
// (whose it was is unknown). A record whose serial is known and at or
// below the highest serial seen when a subscription opened was taken
// before that run started, and is not charged to it. Called by the
// dispatch goroutine only.
func (s *Stream) chargeMalformed(data []byte, serial uint64, serialKnown bool) {
	sample := string(data[:min(len(data), maxMalformedSample)])
	charge := func(sub *Subscription) {
		if serialKnown && serial <= sub.from {
			return
		}
		sub.malformed.Add(1)
		sub.malformedSample.Store(&sample)
	}
	s.routesMu.RLock()
	defer s.routesMu.RUnlock()
	for _, sub := range s.all {
		charge(sub)
	}
	if ses, ok := record.Session(data); ok {
		for _, sub := range s.bySes[ses] {
			charge(sub)
		}
		return
	}
	for _, subs := range s.bySes {
		for _, sub := range subs {
			charge(sub)
		}
	}
}
