package cli

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
)

// runGolden compares with testdata/run/NAME through the package's golden
// helper (baseline_test.go), rewritten with -update.
func runGolden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("..", "run", name), got)
}

// fixtureResult is a check run with one of everything a report shows.
func fixtureResult() *harness.Result {
	obs := baseline.NewObservation("python-agent")
	obs.Runs = 1
	obs.Add(scmp.X86_64, "socket", 3)
	obs.Add(scmp.X86_64, "ptrace", 1)
	obs.Add(scmp.X86_64, "1000", 3)
	obs.Add(scmp.I386, "getpid", 1)
	return &harness.Result{
		Agent: "python-agent", Command: []string{"python3", "agent.py"}, Mode: baseline.ModeCheck, Arch: scmp.X86_64,
		Baselines: []string{"baselines/python3.yaml", "baselines/python-agent.yaml"},
		Verdict:   harness.VerdictViolation, Session: 4242, Observed: obs,
		Violations: harness.Violations{
			{Arch: scmp.X86_64, Syscall: "1000", Number: 1000, Count: 3, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 4},
			{Arch: scmp.X86_64, Syscall: "ptrace", Number: 101, Count: 1, Risk: baseline.RiskProcessAccess, PID: 13, Exe: "/usr/bin/gdb", Comm: "gdb", File: "baselines/python-agent.yaml", Line: 9},
			{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 3, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 11,
				Also: []harness.Caller{{PID: 16, Exe: "/usr/bin/curl", Comm: "curl", Count: 1}}},
			{Arch: scmp.I386, Syscall: "getpid", Number: 20, Count: 1, PID: 14, Exe: "/tmp/int80", Comm: "int80", File: "baselines/python-agent.yaml", Line: 14},
		},
		Unused:     []baseline.Finding{},
		Processes:  []harness.Process{{PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", Events: 5}, {PID: 13, Exe: "/usr/bin/gdb", Comm: "gdb", Events: 1}, {PID: 14, Exe: "/tmp/int80", Comm: "int80", Events: 1}},
		Leaked:     []harness.Leak{{PID: 15, Exe: "/usr/bin/sleep", Comm: "sleep", Lived: 5300 * time.Millisecond, Cause: harness.CauseOutlived}},
		Events:     7,
		ExitStatus: 0,
		Started:    time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		Duration:   1234 * time.Millisecond,
	}
}

func TestRunOutputGolden(t *testing.T) {
	r := fixtureResult()
	for _, format := range []string{"text", "json", "github"} {
		var b bytes.Buffer
		if err := formats[format](&b, r); err != nil {
			t.Fatal(err)
		}
		runGolden(t, "violation."+format, b.String())
	}
	r.Verdict, r.Violations = harness.VerdictInconclusive, harness.Violations{}
	r.Loss = auditlog.Loss{SerialGaps: 3}
	r.Inconclusive = r.Loss.String()
	for _, format := range []string{"text", "github"} {
		var b bytes.Buffer
		if err := formats[format](&b, r); err != nil {
			t.Fatal(err)
		}
		runGolden(t, "inconclusive."+format, b.String())
	}
}

func TestProgressPrintsEachSyscallOnce(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, seen: map[string]bool{}}
	ev := &record.SeccompEvent{Arch: scmp.X86_64, Name: "socket", PID: 7, Exe: "/usr/bin/python3"}
	p.event(ev)
	p.event(ev)
	p.event(&record.SeccompEvent{Arch: scmp.I386, Name: "socket", PID: 8, Exe: "/tmp/int80"})
	want := "sysgate: + x86_64 socket                /usr/bin/python3 (pid 7)\n" +
		"sysgate: + i386 socket                  /tmp/int80 (pid 8)\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	if newProgress(&b) != nil {
		t.Error("progress on a non-terminal")
	}
}
