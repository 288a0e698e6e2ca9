package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/golden"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// programsBaseline is the baseline the fake runs below name; the results
// place their findings in it.
const programsBaseline = "testdata/programs/python-agent.yaml"

// fakeRun makes the run verbs get res instead of running an agent: a run
// on this machine does not report programs yet.
func fakeRun(t *testing.T, res *verdict.Result) {
	t.Helper()
	old := runHarness
	t.Cleanup(func() { runHarness = old })
	runHarness = func(context.Context, harness.Agent, ...harness.Option) (*verdict.Result, error) {
		c := *res
		return &c, nil
	}
}

// programsResult is a run with a new syscall, a risky program outside the
// baseline, an exec mismatch and unverified execs.
func programsResult(mode baseline.Mode) *verdict.Result {
	obs := baseline.NewObservation("python-agent")
	obs.Runs = 1
	obs.Add(scmp.X86_64, "read", 4)
	obs.Add(scmp.X86_64, "socket", 1)
	return &verdict.Result{
		Agent: "python-agent", Command: []string{"python3", "agent.py"}, Mode: mode, Arch: scmp.X86_64, Backend: verdict.BackendNotify,
		Baselines: []string{programsBaseline}, Verdict: verdict.VerdictViolation, Observed: obs, Events: 5, Duration: 900 * time.Millisecond,
		Processes: []verdict.Process{{PID: 42, Exe: "/usr/bin/python3.12", Comm: "python3", Events: 5}},
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 1, PID: 42, Exe: "/usr/bin/python3.12", Comm: "python3",
			File: programsBaseline, Line: 8}},
		ProgramViolations: []verdict.ProgramViolation{
			{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/curl", Role: verdict.RoleProgram, Argv: []string{"curl", "-sS", "https://example.com/x y"},
				Parent: "/usr/bin/python3.12", PID: 43, Count: 1, Risk: risk.Downloader, Level: risk.High}, File: programsBaseline, Line: 9},
			{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/dash", Role: verdict.RoleProgram, Requested: "/bin/true", Argv: []string{"true"},
				Parent: "/usr/bin/python3.12", PID: 44, Count: 1, Risk: risk.Shell, Level: risk.High}, File: programsBaseline, Line: 9,
				Mismatch: "the exec named /bin/true; the kernel ran /usr/bin/dash"},
		},
		UnverifiedExecs: 1,
	}
}

// TestCheckPrintsPrograms: what check and enforce print of programs, in
// text and as annotations, and that a program violation exits 1.
func TestCheckPrintsPrograms(t *testing.T) {
	for _, c := range []struct{ verb, format string }{{"check", "text"}, {"check", "github"}, {"enforce", "text"}} {
		mode := baseline.ModeCheck
		if c.verb == "enforce" {
			mode = baseline.ModeEnforce
		}
		res := programsResult(mode)
		fakeRun(t, res)
		code, stdout, stderr := run(t, c.verb, "-b", programsBaseline, "--color", "never", "--format", c.format, "--", "python3", "agent.py")
		if code != ExitViolation {
			t.Errorf("%s --format %s: code %d, want %d\n%s", c.verb, c.format, code, ExitViolation, stderr)
		}
		golden.Check(t, filepath.Join("testdata", "programs", c.verb+"."+c.format+".out"), []byte(stdout))

		// Programs alone fail the gate as well.
		res.Violations = nil
		fakeRun(t, res)
		if code, _, _ := run(t, c.verb, "-b", programsBaseline, "--format", c.format, "--", "python3", "agent.py"); code != ExitViolation {
			t.Errorf("%s --format %s with programs only: code %d, want %d", c.verb, c.format, code, ExitViolation)
		}
	}
}

// TestRecordRefusesAnExecMismatch: record writes nothing from a run whose
// exec ran another program than it named, and exits 1; without the
// mismatch it records as before.
func TestRecordRefusesAnExecMismatch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "python-agent.yaml")
	res := programsResult(baseline.ModeRecord)
	fakeRun(t, res)
	code, _, stderr := run(t, "record", "--runs", "1", "-o", out, "--color", "never", "--", "python3", "agent.py")
	if code != ExitViolation || !strings.Contains(stderr, "VIOLATION") ||
		!strings.Contains(stderr, "not writing "+out+": the exec named /bin/true; the kernel ran /usr/bin/dash") {
		t.Errorf("code %d, want %d naming the mismatch\n%s", code, ExitViolation, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s written from a run with a mismatch: %v", out, err)
	}

	res.ProgramViolations = res.ProgramViolations[:1]
	fakeRun(t, res)
	code, _, stderr = run(t, "record", "--runs", "1", "-o", out, "--color", "never", "--", "python3", "agent.py")
	if code != ExitOK || !strings.Contains(stderr, "RECORDED") {
		t.Errorf("code %d, want %d\n%s", code, ExitOK, stderr)
	}
	if p, err := baseline.Load(out); err != nil || !p.Allows(scmp.X86_64, "socket") {
		t.Errorf("%s: %v", out, err)
	}
}
