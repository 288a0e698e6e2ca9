package harness

import (
	"fmt"
	"testing"

	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

func TestCollectorKeepsOtherCallersBounded(t *testing.T) {
	c := newCollector("a", nil)
	ev := func(pid int, exe string) *record.SeccompEvent {
		return &record.SeccompEvent{Arch: scmp.X86_64, Name: "socket", Number: 41, PID: pid, Exe: exe, Comm: "c"}
	}
	c.add(ev(1, "/first"))
	c.add(ev(2, "/first")) // the first program again: not an "also"
	for i := 0; i < maxAlso+3; i++ {
		c.add(ev(10+i, fmt.Sprintf("/p%d", i)))
		c.add(ev(100+i, fmt.Sprintf("/p%d", i)))
	}
	vs := c.violations([]baseline.Finding{{Arch: scmp.X86_64, Syscall: "socket", Count: 2 + 2*(maxAlso+3)}})
	if len(vs) != 1 {
		t.Fatalf("violations %v", vs)
	}
	v := vs[0]
	if v.Exe != "/first" || v.PID != 1 {
		t.Errorf("first caller %s pid %d", v.Exe, v.PID)
	}
	if len(v.Also) != maxAlso || v.More != 3 {
		t.Fatalf("also %d more %d; want %d and 3", len(v.Also), v.More, maxAlso)
	}
	for i, a := range v.Also {
		if a.Exe != fmt.Sprintf("/p%d", i) || a.PID != 10+i || a.Count != 2 {
			t.Errorf("also[%d] = %+v", i, a)
		}
	}
}
