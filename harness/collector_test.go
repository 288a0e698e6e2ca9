package harness

import (
	"fmt"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
)

func TestCollectorKeepsOtherCallersBounded(t *testing.T) {
	c := newCollector("a", nil)
	ev := func(pid int, exe string) *observe.Syscall {
		return &observe.Syscall{Arch: scmp.X86_64, Name: "socket", Number: 41, PID: pid, Exe: exe, Comm: "c"}
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

// TestCollectorNamesTheAgentStart: the agent's execve is logged in the
// launcher's image (this process's executable) as its process's first
// call; a later execve in that image, or one by another program, is not
// the start.
func TestCollectorNamesTheAgentStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []observe.Syscall
		start  bool
	}{
		{"launcher's first call", []observe.Syscall{{Name: "execve", PID: 7}}, true},
		{"another program", []observe.Syscall{{Name: "execve", PID: 7, Exe: "/usr/bin/sh"}}, false},
		{"not the process's first call", []observe.Syscall{{Name: "read", PID: 7}, {Name: "execve", PID: 7}}, false},
	} {
		c := newCollector("a", nil)
		for _, ev := range tc.events {
			ev.Arch = scmp.X86_64
			if ev.Exe == "" {
				ev.Exe = launcherExe()
			}
			c.add(&ev)
		}
		vs := c.violations([]baseline.Finding{{Arch: scmp.X86_64, Syscall: "execve", Count: 1}})
		if len(vs) != 1 || vs[0].AgentStart != tc.start {
			t.Errorf("%s: violations %+v, want AgentStart %v", tc.name, vs, tc.start)
		}
	}
}
