package auditlog

import (
	"fmt"
	"testing"
)

// TestSyscallRecordsRoutedByAUID: a SYSCALL record routes its serial by
// auid; the PATH and EOE records of that serial follow it, other
// serials and other auids go nowhere, and EOE ends the route.
func TestSyscallRecordsRoutedByAUID(t *testing.T) {
	s := &Stream{byAUID: map[uint32][]*Subscription{}, openEvents: map[uint64]uint32{}}
	var got []string
	sub := &Subscription{s: s, auid: 7, raw: func(typ uint16, data []byte) { got = append(got, fmt.Sprintf("%d %s", typ, data)) }}
	s.byAUID[7] = []*Subscription{sub}
	s.auidSubs.Add(1)
	feed := []struct {
		typ    uint16
		serial uint64
		data   string
	}{
		{TypeSyscall, 10, "arch=c000003e syscall=257 auid=7 uid=0 ses=3 comm=\"x auid=9\""},
		{TypeSyscall, 11, "arch=c000003e syscall=257 auid=9 uid=0 ses=4"},
		{TypePath, 11, "item=0 name=\"other\""},
		{TypeCWD, 10, "cwd=\"/w\""},
		{TypePath, 10, "item=0 name=\"mine\""},
		{TypeEOE, 10, ""},
		{TypePath, 10, "item=1 name=\"after EOE\""},
		{TypeSyscall, 12, "arch=c000003e syscall=257 auid=4294967295 uid=0"},
	}
	for _, f := range feed {
		s.routeSyscallRecord(f.typ, f.serial, []byte(f.data))
	}
	want := []string{
		"1300 arch=c000003e syscall=257 auid=7 uid=0 ses=3 comm=\"x auid=9\"",
		"1307 cwd=\"/w\"", "1302 item=0 name=\"mine\"", "1320 ",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("routed:\n%q\nwant:\n%q", got, want)
	}
	if len(s.openEvents) != 0 || sub.Events() != 4 {
		t.Errorf("open events %v, delivered %d", s.openEvents, sub.Events())
	}
}
