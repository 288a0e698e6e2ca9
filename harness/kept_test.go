package harness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

func TestCollectorKeepsAtMostMaxKeptProcesses(t *testing.T) {
	c := newCollector("a", nil)
	for pid := 1; pid <= MaxKept+3; pid++ {
		c.add(&record.SeccompEvent{Arch: scmp.X86_64, Name: "getpid", Number: 39, PID: pid, Exe: "/p", Comm: "p"})
	}
	if n := len(c.processes()); n != MaxKept {
		t.Errorf("%d processes kept, want %d", n, MaxKept)
	}
	if got := c.notKeptCounts(); got.ProcessCalls != 3 {
		t.Errorf("not kept %+v, want 3 process calls", got)
	}
	// Their calls count all the same.
	if n := c.obs.Count(scmp.X86_64, "getpid"); n != MaxKept+3 {
		t.Errorf("getpid counted %d times", n)
	}
}

func TestBookCountsProgramsPastMaxKept(t *testing.T) {
	b := newProgramBook()
	b.outside = func(path string) bool { return strings.HasPrefix(path, "/outside/") }
	for i := range MaxKept {
		b.add(ProgramRun{Path: fmt.Sprintf("/allowed/%d", i), Count: 1})
	}
	b.add(ProgramRun{Path: "/allowed/0", Count: 1}) // kept: counted in its entry
	b.add(ProgramRun{Path: "/allowed/new", Count: 1})
	b.add(ProgramRun{Path: "/outside/a", Count: 2})
	if n := len(b.programs()); n != MaxKept {
		t.Errorf("%d programs kept, want %d", n, MaxKept)
	}
	if want := (NotKept{ProgramExecs: 3, ProgramViolations: 2}); b.notKept != want {
		t.Errorf("not kept %+v, want %+v", b.notKept, want)
	}
}

// A run whose only violations were not kept is a violation, and keeps
// what it did not keep (ci's reports say it: TestNotKeptSaid).
func TestDroppedProgramViolationIsAViolation(t *testing.T) {
	r := &Result{Mode: baseline.ModeCheck}
	r.addNotKept(NotKept{ProgramExecs: 5, ProgramViolations: 5})
	r.decide(treeOutcome{}, nil, false)
	if r.Verdict != VerdictViolation {
		t.Errorf("verdict %s, want violation", r.Verdict)
	}
	if want := (NotKept{ProgramExecs: 5, ProgramViolations: 5}); r.NotKept == nil || *r.NotKept != want {
		t.Errorf("not kept %+v, want %+v", r.NotKept, want)
	}
}
