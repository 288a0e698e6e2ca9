package ci

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

// fixtureResult is a check run with one of everything a report shows.
func fixtureResult() *verdict.Result {
	obs := baseline.NewObservation("python-agent")
	obs.Runs = 1
	obs.Add(scmp.X86_64, "socket", 3)
	obs.Add(scmp.X86_64, "ptrace", 1)
	obs.Add(scmp.X86_64, "1000", 3)
	obs.Add(scmp.I386, "getppid", 1)
	return &verdict.Result{
		Agent: "python-agent", Command: []string{"python3", "agent.py"}, Mode: baseline.ModeCheck, Arch: scmp.X86_64,
		Baselines: []string{"baselines/python3.yaml", "baselines/python-agent.yaml"},
		Verdict:   verdict.VerdictViolation, Session: 4242, Observed: obs,
		Violations: verdict.Violations{
			{Arch: scmp.X86_64, Syscall: "1000", Number: 1000, Count: 3, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 4},
			{Arch: scmp.X86_64, Syscall: "ptrace", Number: 101, Count: 1, Risk: risk.ProcessAccess, PID: 13, Exe: "/usr/bin/gdb", Comm: "gdb", File: "baselines/python-agent.yaml", Line: 9},
			{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 3, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 11,
				Also: []verdict.Caller{{PID: 16, Exe: "/usr/bin/curl", Comm: "curl", Count: 1}}},
			{Arch: scmp.I386, Syscall: "getppid", Number: 64, Count: 1, PID: 14, Exe: "/tmp/int80", Comm: "int80", File: "baselines/python-agent.yaml", Line: 14},
		},
		Unused:     []baseline.Finding{},
		Processes:  []verdict.Process{{PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", Events: 5}, {PID: 13, Exe: "/usr/bin/gdb", Comm: "gdb", Events: 1}, {PID: 14, Exe: "/tmp/int80", Comm: "int80", Events: 1}},
		Leaked:     []verdict.Leak{{PID: 15, Exe: "/usr/bin/sleep", Comm: "sleep", Lived: 5300 * time.Millisecond, Cause: verdict.CauseOutlived}},
		Events:     7,
		ExitStatus: 0,
		Started:    time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		Duration:   1234 * time.Millisecond,
	}
}

func resultGolden(t *testing.T, name string, r *verdict.Result, formats ...string) {
	t.Helper()
	for _, format := range formats {
		var b bytes.Buffer
		if err := WriteResult(&b, format, r, "", Palette{}); err != nil {
			t.Fatal(err)
		}
		golden(t, "result."+name+"."+format, b.Bytes())
	}
}

func TestResultGolden(t *testing.T) {
	r := fixtureResult()
	resultGolden(t, "violation", r, "text", "json", "github")

	// An arm64 runner before any aarch64 list was recorded: check
	// --format github says how to record it, as report annotations does.
	m := fixtureResult()
	m.Arch, m.MissingArch = scmp.AArch64, true
	m.Violations = verdict.Violations{{Arch: scmp.AArch64, Syscall: "openat", Number: 56, Count: 9, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3",
		File: "baselines/python-agent.yaml", Line: 3}}
	resultGolden(t, "missing-arch", m, "text", "github")

	// A baseline without execve: the agent's own start is the first
	// call, logged in sysgate's launcher, and named as the start.
	e := fixtureResult()
	e.Leaked = nil
	e.Violations = verdict.Violations{{Arch: scmp.X86_64, Syscall: "execve", Number: 59, Count: 2, PID: 12, Exe: "/usr/local/bin/sysgate", Comm: "sysgate",
		AgentStart: true, File: "baselines/python-agent.yaml", Line: 5, Also: []verdict.Caller{{PID: 16, Exe: "/usr/bin/python3.12", Comm: "python3", Count: 1}}}}
	resultGolden(t, "agent-start", e, "text", "github")

	// A baseline that opts in to io_uring: the banner leads every format;
	// the agent's listener attempt was refused.
	u := fixtureResult()
	u.Verdict, u.Violations, u.Leaked = verdict.VerdictClean, verdict.Violations{}, nil
	u.Unmonitored = []baseline.Unmonitored{{Arch: scmp.X86_64, Syscall: "io_uring_setup", Reason: "the runtime reads files through a ring",
		Unseen: "operations submitted through an io_uring", File: "baselines/python-agent.yaml", Line: 40}}
	u.Refused = []baseline.Finding{{Arch: scmp.X86_64, Syscall: "seccomp", Count: 1, Risk: risk.Seccomp}}
	resultGolden(t, "unseen", u, "text", "json", "github")

	resultGolden(t, "classes", classResult(), "text", "json", "github", "sarif")

	r.Verdict, r.Violations = verdict.VerdictInconclusive, verdict.Violations{}
	r.Loss = observe.Loss{SerialGaps: 3}
	r.Inconclusive = r.Loss.String()
	resultGolden(t, "inconclusive", r, "text", "github")
}

// classResult is a check run whose new calls are argument classes: high
// and medium risks, one without a risk, classes beside the ones the
// baseline allows and one of a syscall it allows not at all.
func classResult() *verdict.Result {
	r := fixtureResult()
	r.Observed = baseline.NewObservation("python-agent")
	r.Observed.Runs = 1
	for i, name := range []string{"clone(CLONE_NEWNS)", "mprotect(W+X)", "openat(create)", "socket(AF_PACKET)"} {
		r.Observed.Add(scmp.X86_64, name, uint64(i+1))
	}
	r.Leaked = nil
	r.Violations = verdict.Violations{
		{Arch: scmp.X86_64, Syscall: "clone(CLONE_NEWNS)", Number: 56, Count: 1, Risk: risk.Namespace, Level: risk.Medium,
			Allowed: []string{"clone(none)"}, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 5},
		{Arch: scmp.X86_64, Syscall: "mprotect(W+X)", Number: 10, Count: 2, Risk: risk.ExecMemory, Level: risk.High,
			Allowed: []string{"mprotect(W^X)"}, PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 7},
		{Arch: scmp.X86_64, Syscall: "openat(create)", Number: 257, Count: 3, Allowed: []string{"openat(read)", "openat(write)"},
			PID: 12, Exe: "/usr/bin/python3.12", Comm: "python3", File: "baselines/python-agent.yaml", Line: 8},
		{Arch: scmp.X86_64, Syscall: "socket(AF_PACKET)", Number: 41, Count: 4, Risk: risk.RawNetwork, Level: risk.High,
			PID: 18, Exe: "/usr/bin/tcpdump", Comm: "tcpdump", File: "baselines/python-agent.yaml", Line: 11},
	}
	return r
}

// TestRecordGolden is what sysgate record prints: the run, then what it
// wrote into the baseline.
func TestRecordGolden(t *testing.T) {
	r := fixtureResult()
	r.Mode, r.Leaked = baseline.ModeRecord, nil
	var b bytes.Buffer
	if err := WriteText(&b, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	rec := &baseline.RecordResult{
		Added: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "mprotect(W+X)", Risk: risk.ExecMemory, Level: risk.High},
			{Arch: scmp.X86_64, Syscall: "ptrace", Risk: risk.ProcessAccess, Level: risk.Medium}, {Arch: scmp.X86_64, Syscall: "socket"}},
		Removed: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "flock"}},
		Skipped: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "1000"}},
		AddedFiles: []baseline.FileFinding{{Path: "{workspace}/**", Op: baseline.FileRead, Covers: "covers sensitive paths: /**/.env (env file, high)"},
			{Path: "{home}/.netrc", Op: baseline.FileRead, Sensitive: "credentials", Level: risk.High}, {Path: "/etc/hosts", Op: baseline.FileRead}},
		PinChanges: []baseline.PinChange{{Program: "../agents/run.py", Old: []string{strings.Repeat("a", 64)}, Held: true},
			{Program: "/opt/tool", Old: []string{strings.Repeat("a", 64)}, New: []string{strings.Repeat("b", 64)}}},
	}
	if err := WriteRecorded(&b, "baselines/python-agent.yaml", rec, Palette{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "result.record.text", b.Bytes())
}

// TestRenderingLeavesTheResultAlone: a report sorts its runs' findings
// and shows paths relative to its root without touching the caller's
// Result (the CLI writes it to --result after rendering).
func TestRenderingLeavesTheResultAlone(t *testing.T) {
	r := fixtureResult()
	r.Violations[0], r.Violations[3] = r.Violations[3], r.Violations[0]
	first := r.Violations[0]
	var b bytes.Buffer
	if err := FromResults("/elsewhere", r).WriteAnnotations(&b); err != nil {
		t.Fatal(err)
	}
	if got := r.Violations[0]; got.Syscall != first.Syscall || got.File != first.File {
		t.Errorf("rendering changed the Result: first violation %s %s, was %s %s", got.Syscall, got.File, first.Syscall, first.File)
	}
	if !bytes.Contains(b.Bytes(), []byte("title=sysgate%3A risky syscall ptrace")) {
		t.Errorf("annotations:\n%s", b.String())
	}
}

func TestCountAgrees(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 processes"}, {1, "1 process"}, {2, "2 processes"}} {
		if got := Count(tc.n, "process", "processes"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"python3": "python3", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "--x=/a/b": "--x=/a/b"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestColorGolden: on a terminal the verdict and risk tags are coloured,
// and the table stays aligned (every RISK cell carries codes of the same
// length). The plain goldens above are the same output without colour.
func TestColorGolden(t *testing.T) {
	for name, r := range map[string]*verdict.Result{"violation": fixtureResult(), "clean": cleanResult()} {
		var b bytes.Buffer
		if err := WriteText(&b, r, Palette{Color: true}); err != nil {
			t.Fatal(err)
		}
		golden(t, "result."+name+".color", b.Bytes())
		var plain bytes.Buffer
		if err := WriteText(&plain, r, Palette{}); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(plain.Bytes(), []byte("\x1b[")) {
			t.Errorf("%s: ANSI codes without colour:\n%q", name, plain.String())
		}
		if got := ansi.ReplaceAll(b.Bytes(), nil); !bytes.Equal(got, plain.Bytes()) {
			t.Errorf("%s: coloured output without its codes differs from the plain one:\n%s\n---\n%s", name, got, plain.Bytes())
		}
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func cleanResult() *verdict.Result {
	r := fixtureResult()
	r.Verdict, r.Violations, r.Leaked = verdict.VerdictClean, verdict.Violations{}, nil
	return r
}

// An inconclusive run's reasons are sysgate's own text joined by new
// lines: the headline shows them as parts, not as an escaped \x0a; a new
// line the agent put in a name stays escaped (the harness escapes each
// reason).
func TestInconclusiveReasonsAreNotEscapedAsTheAgents(t *testing.T) {
	r := &verdict.Result{Agent: "a", Mode: baseline.ModeCheck, Verdict: verdict.VerdictInconclusive,
		Inconclusive: "lost 3 events\n1 exec ran a program sysgate could not name (/tmp/x\\x0ay)"}
	var b bytes.Buffer
	if err := WriteText(&b, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n")
	if want := "(lost 3 events; 1 exec ran a program sysgate could not name (/tmp/x\\x0ay))"; !strings.Contains(head, want) {
		t.Errorf("headline %q; want it to contain %q", head, want)
	}
	if s := Summary(r); !strings.Contains(s, "lost 3 events; 1 exec") {
		t.Errorf("Summary %q; want the reasons as parts", s)
	}
}
