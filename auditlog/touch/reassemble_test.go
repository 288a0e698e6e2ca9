package touch

import (
	"fmt"
	"slices"
	"testing"
)

func syscallRecord(serial int) string {
	return fmt.Sprintf("audit(1.1:%d): arch=c000003e syscall=257 success=yes exit=3 a0=ffffff9c a1=0 a2=0 a3=0 items=1 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"", serial)
}

// Events leave in serial order when their records arrive out of order,
// one without an EOE is held until Close (nothing lost), and an EOE for
// a serial never seen is ignored.
func TestAssembleOrderAndFlush(t *testing.T) {
	var serials []uint64
	a := NewAssembler(func(ev Event) { serials = append(serials, ev.Serial) })
	push := func(typ uint16, data string) {
		t.Helper()
		if err := a.Push(typ, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	push(typeSyscall, syscallRecord(11))
	push(typeSyscall, syscallRecord(10))
	push(typeEOE, "audit(1.1:11): ")
	push(typeEOE, "audit(1.1:99): ")
	if len(serials) != 0 {
		t.Fatalf("emitted %v before serial 10 completed", serials)
	}
	push(typeEOE, "audit(1.1:10): ")
	push(typeSyscall, syscallRecord(12)) // no EOE ever
	if !slices.Equal(serials, []uint64{10, 11}) {
		t.Fatalf("after the EOEs: %v, want [10 11]", serials)
	}
	a.Close()
	if !slices.Equal(serials, []uint64{10, 11, 12}) || a.Malformed() != 0 {
		t.Fatalf("after Close: %v (%d malformed), want [10 11 12]", serials, a.Malformed())
	}
}

// More than maxInFlight events without their EOE: the oldest leave.
func TestAssembleBoundsInFlight(t *testing.T) {
	n := 0
	a := NewAssembler(func(Event) { n++ })
	for s := 1; s <= maxInFlight+5; s++ {
		if err := a.Push(typeSyscall, []byte(syscallRecord(s))); err != nil {
			t.Fatal(err)
		}
	}
	if n != 5 {
		t.Fatalf("%d events left before Close, want 5", n)
	}
	a.Close()
	if n != maxInFlight+5 {
		t.Fatalf("%d events after Close, want %d", n, maxInFlight+5)
	}
}

// A record with a bad header is refused and counted; an event with an
// unreadable record is counted, not delivered.
func TestAssembleCountsMalformed(t *testing.T) {
	n := 0
	a := NewAssembler(func(Event) { n++ })
	if err := a.Push(typePath, []byte("audit(x)")); err == nil {
		t.Error("bad header accepted")
	}
	_ = a.Push(typeSyscall, []byte(syscallRecord(5)))
	_ = a.Push(typeSockaddr, []byte("audit(1.1:5): saddr=01"))
	a.Close()
	if n != 0 || a.Malformed() != 2 || a.Err() == nil {
		t.Errorf("%d events, %d malformed (%v); want 0 and 2", n, a.Malformed(), a.Err())
	}
}
