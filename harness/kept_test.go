package harness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

func TestCollectorKeepsAtMostMaxKeptProcesses(t *testing.T) {
	c := newCollector("a", nil)
	for pid := 1; pid <= verdict.MaxKept+3; pid++ {
		c.add(&observe.Syscall{Arch: scmp.X86_64, Name: "getpid", Number: 39, PID: pid, Exe: "/p", Comm: "p"})
	}
	if n := len(c.processes()); n != verdict.MaxKept {
		t.Errorf("%d processes kept, want %d", n, verdict.MaxKept)
	}
	if got := c.notKeptCounts(); got.ProcessCalls != 3 {
		t.Errorf("not kept %+v, want 3 process calls", got)
	}
	// Their calls count all the same.
	if n := c.obs.Count(scmp.X86_64, "getpid"); n != verdict.MaxKept+3 {
		t.Errorf("getpid counted %d times", n)
	}
}

func TestBookCountsProgramsPastMaxKept(t *testing.T) {
	b := newProgramBook()
	b.outside = func(path string) bool { return strings.HasPrefix(path, "/outside/") }
	for i := range verdict.MaxKept {
		b.add(verdict.ProgramRun{Path: fmt.Sprintf("/allowed/%d", i), Count: 1})
	}
	b.add(verdict.ProgramRun{Path: "/allowed/0", Count: 1}) // kept: counted in its entry
	b.add(verdict.ProgramRun{Path: "/allowed/new", Count: 1})
	b.add(verdict.ProgramRun{Path: "/outside/a", Count: 2})
	if n := len(b.programs()); n != verdict.MaxKept {
		t.Errorf("%d programs kept, want %d", n, verdict.MaxKept)
	}
	if want := (verdict.NotKept{ProgramExecs: 3, ProgramViolations: 2}); b.notKept != want {
		t.Errorf("not kept %+v, want %+v", b.notKept, want)
	}
}
