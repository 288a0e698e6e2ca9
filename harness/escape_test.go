package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/scmp"
)

// TestSummaryEscapesAgentNames: Gomega and Ginkgo print a Result's
// Summary on the terminal that runs the suites; what the agent named
// (exe, comm, program paths, argv) shows as text there (issue 32, item 7).
func TestSummaryEscapesAgentNames(t *testing.T) {
	name := "/tmp/\x1b[2J\x1b]0;pwned\x07x"
	r := &Result{Agent: "a", Verdict: VerdictViolation, Inconclusive: "exe " + name + " unreadable",
		Violations: Violations{{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 1, PID: 2, Exe: name, Comm: name[5:],
			Also: []Caller{{PID: 3, Exe: name, Comm: name[5:], Count: 1}}}},
		ProgramViolations: []ProgramViolation{{ProgramRun: ProgramRun{Path: name, Argv: []string{name}, Parent: name, PID: 4, Count: 1},
			Mismatch: "the exec named " + name}},
		Leaked: []Leak{{PID: 5, Exe: name, Comm: name[5:], Lived: time.Second, Cause: CauseOutlived}},
	}
	s := r.Summary()
	if strings.ContainsAny(s, "\x1b\x07") {
		t.Errorf("Summary holds raw control characters:\n%q", s)
	}
	if !strings.Contains(s, `/tmp/\x1b[2J\x1b]0;pwned\x07x`) {
		t.Errorf("Summary hides the name instead of escaping it:\n%q", s)
	}
}
