package ci

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// TestSummaryEscapesAgentNames: Ginkgo prints a Result's Summary on the
// terminal that runs the suites; what the agent named (exe, comm,
// program paths, argv) shows as text there (issue 32, item 7).
func TestSummaryEscapesAgentNames(t *testing.T) {
	name := "/tmp/\x1b[2J\x1b]0;pwned\x07x"
	r := &verdict.Result{Agent: "a", Verdict: verdict.VerdictViolation, Inconclusive: "exe " + name + " unreadable",
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 1, PID: 2, Exe: name, Comm: name[5:],
			Also: []verdict.Caller{{PID: 3, Exe: name, Comm: name[5:], Count: 1}}}},
		ProgramViolations: []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: name, Argv: []string{name}, Parent: name, PID: 4, Count: 1},
			Mismatch: "the exec named " + name}},
		Leaked: []verdict.Leak{{PID: 5, Exe: name, Comm: name[5:], Lived: time.Second, Cause: verdict.CauseOutlived}},
	}
	s := Summary(r)
	if strings.ContainsAny(s, "\x1b\x07") {
		t.Errorf("Summary holds raw control characters:\n%q", s)
	}
	if !strings.Contains(s, `/tmp/\x1b[2J\x1b]0;pwned\x07x`) {
		t.Errorf("Summary hides the name instead of escaping it:\n%q", s)
	}
}

func TestWeakenedBannerNamesMissingIsolation(t *testing.T) {
	if b := WeakenedBanner(&verdict.Result{}); b != "" {
		t.Errorf("default run: banner %q", b)
	}
	r := &verdict.Result{IsolationUnavailable: "clone(CLONE_NEWPID): operation not permitted", KeptCapabilities: []string{"CAP_SYS_ADMIN"}}
	b := WeakenedBanner(r)
	for _, want := range []string{"process isolation unavailable: clone(CLONE_NEWPID): operation not permitted", "CAP_SYS_ADMIN (--keep-cap)"} {
		if !strings.Contains(b, want) {
			t.Errorf("banner %q lacks %q", b, want)
		}
	}
}

// TestNotKeptSaid: a run that did not keep all it saw says what in its
// banner and its summary.
func TestNotKeptSaid(t *testing.T) {
	r := &verdict.Result{Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation,
		NotKept: &verdict.NotKept{ProgramExecs: 5, ProgramViolations: 5}}
	want := fmt.Sprintf("5 more execs of programs, 5 more program violations not kept (a run keeps at most %d of each", verdict.MaxKept)
	for name, text := range map[string]string{"banner": WeakenedBanner(r), "summary": Summary(r)} {
		if !strings.Contains(text, want) {
			t.Errorf("%s %q does not say %q", name, text, want)
		}
	}
}

// The record command of an unrecorded layer runs the agent again in the
// same root, with the same binds and directory; a run on the host's
// root gets none of the flags.
func TestArchHintInRoot(t *testing.T) {
	r := &verdict.Result{Command: []string{"/usr/bin/python3", "-c", "import json"}, Baselines: []string{"b/python3.yaml"},
		Root: "/var/cache/sysgate/rootfs/trixie-1", RootBinds: []string{"/tmp/r:/tmp/r"}, RootDir: "/tmp/r/ws",
		MissingArch: true,
		Unrecorded: []baseline.UnrecordedLayer{{File: "b/python3.yaml", Line: 8, Pattern: "{os}/python-{python}.yaml",
			Path: "b/debian-13/python-3.13.yaml", Values: baseline.Selector{"os": "debian-13", "python": "3.13"}}}}
	want := "`sysgate record --merge -o b/python3.yaml --root /var/cache/sysgate/rootfs/trixie-1 --bind /tmp/r:/tmp/r --dir /tmp/r/ws -- /usr/bin/python3 -c 'import json'`"
	if got := ArchHint(r); !strings.Contains(got, want) || !strings.HasPrefix(got, "Unrecorded environment: nobody has recorded the layer b/debian-13/python-3.13.yaml") {
		t.Errorf("ArchHint() = %s\nwant the unrecorded layer first (before the missing arch) and %s", got, want)
	}
	r.Root, r.RootBinds, r.RootDir = "", nil, ""
	if got := ArchHint(r); strings.Contains(got, "--root") || strings.Contains(got, "--dir") {
		t.Errorf("ArchHint() of a run on the host = %s; want no --root or --dir", got)
	}
}

// TestArchHintOfMissingArch: baselines without the run's arch say how to
// record it, in the hint and the summary; with it, no hint (harness's
// TestBaselinesWithoutTheNativeArchSayHowToRecordIt runs both).
func TestArchHintOfMissingArch(t *testing.T) {
	native := scmp.Native()
	r := &verdict.Result{Agent: "true", Command: []string{"/bin/true"}, Mode: baseline.ModeCheck, Arch: native,
		Verdict: verdict.VerdictViolation, MissingArch: true,
		Violations: verdict.Violations{{Arch: native, Syscall: "execve", Number: 59, Count: 1, PID: 2, Exe: "/bin/true", Comm: "true"}}}
	if h := ArchHint(r); !strings.Contains(h, "no "+native.String()+" list") || !strings.Contains(h, "sysgate record --merge") || strings.Contains(h, "make ") {
		t.Errorf("hint %q", h)
	}
	if !strings.Contains(Summary(r), ArchHint(r)) {
		t.Errorf("summary lacks the hint: %s", Summary(r))
	}
	r.MissingArch = false
	if h := ArchHint(r); h != "" {
		t.Errorf("hint on a baseline with a %s list: %q", native, h)
	}
}

// TestShimNote: the note names the interpreter started in the shim's
// place, or, when the manager named none, the fix.
func TestShimNote(t *testing.T) {
	interp := "/root/.pyenv/versions/3.11.7/bin/python3.11"
	if note := ShimNote(&verdict.ShimResolution{Manager: "pyenv", Shim: "/root/.pyenv/shims/python3", Interpreter: interp}); !strings.Contains(note, "started "+interp) {
		t.Errorf("note %q does not name the interpreter", note)
	}
	kept := &verdict.ShimResolution{Manager: "pyenv", Shim: "/root/.pyenv/shims/python3", Problem: "pyenv: version `9.9' is not installed"}
	if note := ShimNote(kept); !strings.Contains(note, "pyenv which python3") {
		t.Errorf("note %q names no fix", note)
	}
	if note := ShimNote(nil); note != "" {
		t.Errorf("note of no shim: %q", note)
	}
}

// A violation of the scheduling group (a baseline that asks for it
// exactly) is named as scheduling-dependent, never a behaviour change or
// drift; the other violations keep their sentence.
func TestDriftNoteScheduling(t *testing.T) {
	same := &verdict.Drift{Recorded: true}
	drift := &verdict.Drift{Recorded: true, Changes: []baseline.EnvChange{{Part: "python", Was: "3.11.2", Now: "3.13.5"}}}
	v := func(names ...string) verdict.Violations {
		var out verdict.Violations
		for _, n := range names {
			out = append(out, verdict.Violation{Arch: scmp.X86_64, Syscall: n, Count: 1})
		}
		return out
	}
	for _, c := range []struct {
		name       string
		drift      *verdict.Drift
		violations verdict.Violations
		want, not  []string
	}{
		{"scheduling only", same, v("clock_nanosleep"),
			[]string{"clock_nanosleep is a scheduling-dependent call", "scheduling: exact"}, []string{"behaviour change", "drift"}},
		{"scheduling only, two", same, v("sched_yield", "clock_nanosleep", "sched_yield"),
			[]string{"sched_yield, clock_nanosleep are scheduling-dependent calls"}, []string{"behaviour change"}},
		{"scheduling without a fingerprint", nil, v("nanosleep"), []string{"nanosleep is a scheduling-dependent call"}, []string{"behaviour"}},
		{"mixed", same, v("ptrace", "sched_yield"),
			[]string{"same environment as recorded: this is a behaviour change; sched_yield is a scheduling-dependent call"}, nil},
		{"mixed with drift counts the others", drift, v("ptrace", "mount", "sched_yield"),
			[]string{"these 2 new syscalls are most likely environment drift", "; sched_yield is a scheduling-dependent call"}, nil},
		{"others only", same, v("ptrace"), []string{"same environment as recorded: this is a behaviour change"}, []string{"scheduling"}},
	} {
		got := DriftNote(&verdict.Result{Mode: baseline.ModeCheck, Drift: c.drift, Violations: c.violations})
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q says %q", c.name, got, w)
			}
		}
	}
}

// Record explains the shim in full; a check, run again and again, says
// only what ran in its place (issue 46: a 250-character sentence on
// every check).
func TestShimExplainedInFullOnlyWhenRecording(t *testing.T) {
	interp := "/root/.pyenv/versions/3.11.7/bin/python3.11"
	shim := &verdict.ShimResolution{Manager: "pyenv", Shim: "/root/.pyenv/shims/python3", Interpreter: interp, PathAdded: "/root/.pyenv/versions/3.11.7/bin"}
	line := func(mode baseline.Mode) string {
		var b bytes.Buffer
		if err := WriteText(&b, &verdict.Result{Agent: "a", Mode: mode, Verdict: verdict.VerdictClean, Shim: shim}, Palette{}); err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(b.String()) {
			if strings.Contains(l, "shim") {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	if got := line(baseline.ModeCheck); got != "pyenv shim: started "+interp {
		t.Errorf("check: %q; want the short line", got)
	}
	if got := line(baseline.ModeRecord); !strings.Contains(got, "in its place") || !strings.Contains(got, "PATH") {
		t.Errorf("record: %q; want the full note", got)
	}
}
