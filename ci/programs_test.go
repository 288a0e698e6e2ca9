package ci

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// programViolations are one of each kind of program a report names: a
// risky one with a redacted argument and one with a space, an exec whose
// program changed under it, a medium risk reached through a symlink, and
// a script that was the agent's start. file is the agent's baseline.
func programViolations(file string) []verdict.ProgramViolation {
	return []verdict.ProgramViolation{
		{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/curl", Role: verdict.RoleProgram,
			Argv:   []string{"curl", "-s", "-H", "<redacted>", "https://example.com/a b"},
			Parent: "/usr/bin/python3.12", PID: 42, Count: 2, Risk: risk.Downloader, Level: risk.High},
			File: file, Line: 20},
		{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/nc.openbsd", Role: verdict.RoleProgram, Requested: "/bin/true", Argv: []string{"true"},
			Parent: "/usr/bin/python3.12", PID: 45, Count: 1, Risk: risk.Downloader, Level: risk.High},
			File: file, Line: 20, Mismatch: "the exec named /bin/true; the kernel ran /usr/bin/nc.openbsd"},
		{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/x86_64-linux-gnu-gcc-12", Role: verdict.RoleProgram, Requested: "/usr/bin/cc",
			Argv: []string{"cc", "-o", "/tmp/x", "/tmp/x.c"}, Parent: "/usr/bin/make", PID: 47, Count: 3, Risk: risk.Compiler, Level: risk.Medium},
			File: file, Line: 20},
		{ProgramRun: verdict.ProgramRun{Path: "/work/agent/run.sh", Role: verdict.RoleScript, Argv: []string{"./run.sh", "--task=it's done"},
			PID: 12, Count: 1}, File: file, Line: 21},
	}
}

// programResult is a check run with programs outside the baseline,
// program entries it did not use and execs sysgate could not verify,
// beside one new syscall.
func programResult() *verdict.Result {
	r := fixtureResult()
	r.Leaked = nil
	r.Violations = r.Violations[2:3] // socket
	r.ProgramViolations = programViolations("baselines/python-agent.yaml")
	r.Programs = []verdict.ProgramRun{{Path: "/usr/bin/python3.12", Role: verdict.RoleInterpreter, Argv: []string{"python3", "agent.py"}, PID: 12, Count: 1}}
	for _, v := range r.ProgramViolations {
		r.Programs = append(r.Programs, v.ProgramRun)
	}
	r.UnusedPrograms = []baseline.ProgramFinding{
		{Program: "/usr/bin/ssh", Risk: risk.Downloader, Level: risk.High, File: "baselines/python-agent.yaml", Line: 23},
		{Program: "/usr/bin/git", File: "baselines/python-agent.yaml", Line: 22},
	}
	r.UnverifiedExecs = 3
	r.UnverifiedOutside = []verdict.UnverifiedExec{{Path: "/usr/bin/x86_64-linux-gnu-gcc-12", Count: 1}}
	return r
}

func TestProgramsGolden(t *testing.T) {
	resultGolden(t, "programs", programResult(), "text", "json")

	// Only programs outside the baseline: the verdict is still a
	// violation, and nothing speaks of new syscalls.
	p := programResult()
	p.Violations = verdict.Violations{}
	resultGolden(t, "programs-only", p, "text")

	// A record run learns its programs: only a mismatch is shown.
	rec := programResult()
	rec.Mode = baseline.ModeRecord
	rec.UnverifiedOutside = nil // record gates no programs: none is outside
	resultGolden(t, "programs.record", rec, "text")

	var b bytes.Buffer
	if err := WriteText(&b, programResult(), Palette{Color: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "result.programs.color", b.Bytes())
	if !bytes.Contains(b.Bytes(), []byte(sgrRed+"MISMATCH"+sgrReset)) {
		t.Error("the mismatch is not painted red")
	}
}

func TestProgramsJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := FromResults("", programResult()).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "result.programs.junit.xml", b.Bytes())
	wellFormed(t, b.Bytes())
	want := `message="python-agent: 1 syscall and 4 programs outside the baseline (1 exec mismatch)"`
	if !strings.Contains(b.String(), want) {
		t.Errorf("want %s in\n%s", want, b.String())
	}
	p := programResult()
	p.Violations = nil
	if got := junitMessage(Run{Result: p}); got != "python-agent: 4 programs outside the baseline (1 exec mismatch)" {
		t.Errorf("programs only: %q", got)
	}
}

// TestProgramsSurviveJSON: the program fields of a Result reach every
// renderer whichever way it is read back: a result file (check --result,
// --format json) or a Ginkgo report entry.
func TestProgramsSurviveJSON(t *testing.T) {
	want := programResult()
	var b bytes.Buffer
	if err := WriteJSON(&b, want); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := Load(LoadOptions{}, file)
	if err != nil {
		t.Fatal(err)
	}
	fromGinkgo, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite, spec{text: "python agent", failed: "violation", result: want}))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's violations are in path order already; its unused
	// programs are not, and a report sorts them.
	for name, r := range map[string]*Report{"result file": fromFile, "Ginkgo report": fromGinkgo} {
		got := r.Runs[0].Result
		if !reflect.DeepEqual(got.Programs, want.Programs) || !reflect.DeepEqual(got.ProgramViolations, want.ProgramViolations) ||
			!reflect.DeepEqual(got.UnusedPrograms, []baseline.ProgramFinding{want.UnusedPrograms[1], want.UnusedPrograms[0]}) ||
			got.UnverifiedExecs != want.UnverifiedExecs || !reflect.DeepEqual(got.UnverifiedOutside, want.UnverifiedOutside) {
			t.Errorf("%s: programs %+v\nviolations %+v\nunused %+v\nunverified %d, outside %+v", name, got.Programs, got.ProgramViolations, got.UnusedPrograms,
				got.UnverifiedExecs, got.UnverifiedOutside)
		}
	}
}

// TestProgramsInTheGomegaSummary: the one-line Result the matchers print
// lists programs after syscalls, mismatch first and argv quoted.
func TestProgramsInTheGomegaSummary(t *testing.T) {
	s := Summary(programResult())
	socket := strings.Index(s, "x86_64 socket")
	curl := strings.Index(s, "program /usr/bin/curl [risky: downloader, high] x2 (curl -s -H <redacted> 'https://example.com/a b') run by /usr/bin/python3.12 (pid 42) -> baselines/python-agent.yaml:20")
	mismatch := strings.Index(s, "program MISMATCH (the exec named /bin/true; the kernel ran /usr/bin/nc.openbsd): /usr/bin/nc.openbsd [risky: downloader, high]")
	script := strings.Index(s, "program /work/agent/run.sh (script) x1 (./run.sh '--task=it'\\''s done') as the agent's start (pid 12)")
	if socket < 0 || curl < socket || mismatch < socket || script < socket {
		t.Errorf("summary:\n%s", s)
	}
}

// TestRecordRunWithAMismatchIsAViolation: a record run learns its new
// programs, but an exec whose program changed under it is never learnt.
func TestRecordRunWithAMismatchIsAViolation(t *testing.T) {
	rec := programResult()
	rec.Mode = baseline.ModeRecord
	rec.UnverifiedOutside = nil // record gates no programs: none is outside
	if o := (Run{Result: rec}).Outcome(); o != VerdictViolation {
		t.Errorf("record run with a mismatch: %s, want violation", o)
	}
	rec.ProgramViolations = rec.ProgramViolations[:1]
	if o := (Run{Result: rec}).Outcome(); o != VerdictRecorded {
		t.Errorf("record run with a new program: %s, want recorded", o)
	}
}

// A pinned program whose content changed is told apart from an exec that
// ran another program than it named: the fix differs.
func TestMismatchFixNamesThePin(t *testing.T) {
	pin := "content: /usr/bin/x is sha256 aa; agent.yaml:9 pins sha256 bb (the file was replaced; record again only if the agent is meant to run the new one)"
	if got := mismatchFix(pin); !strings.Contains(got, "the pin is the gate") || strings.Contains(got, "the path the exec named changed") {
		t.Errorf("pin mismatch: %q", got)
	}
	race := "the exec named /bin/true; the kernel ran /usr/bin/dash"
	if got := mismatchFix(race); !strings.Contains(got, "the path the exec named changed") {
		t.Errorf("exec mismatch: %q", got)
	}
}
