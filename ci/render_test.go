package ci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

const (
	fixtureRoot  = "/repo"
	fixtureSuite = "/repo/suites/mcp"
)

func render(t *testing.T, name string, specs ...spec) *Report {
	t.Helper()
	r, err := Load(LoadOptions{Root: fixtureRoot, HostArch: scmp.X86_64}, writeGinkgoReport(t, fixtureSuite, specs...))
	if err != nil {
		t.Fatal(err)
	}
	var ann, sum bytes.Buffer
	if err := r.WriteAnnotations(&ann); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	golden(t, name+".annotations", ann.Bytes())
	golden(t, name+".summary.md", sum.Bytes())
	return r
}

func TestRenderCleanRun(t *testing.T) {
	r := render(t, "clean",
		spec{text: "filesystem server lists a directory", result: &verdict.Result{Agent: "mcp-filesystem", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Duration: 1200 * time.Millisecond}},
		spec{text: "memory server stores an entity", result: &verdict.Result{Agent: "mcp-memory", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Duration: 800 * time.Millisecond}},
		// A bite: the spec passes because the gate caught the violation.
		spec{text: "filesystem server is caught moving a file", result: &verdict.Result{Agent: "mcp-filesystem-bite-move", Mode: baseline.ModeCheck,
			Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: 500 * time.Millisecond,
			Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "rename", Count: 1, PID: 3, Exe: "/usr/bin/node", File: "../baselines/mcp-filesystem.yaml", Line: 11}}}},
	)
	if r.Verdict() != VerdictClean {
		t.Errorf("verdict %q, want clean (a caught bite passes)", r.Verdict())
	}
	if a := r.Annotations(); len(a) != 0 {
		t.Errorf("clean run annotated: %v", a)
	}
}

func TestRenderUnmonitored(t *testing.T) {
	r := render(t, "unmonitored",
		spec{text: "node server reads a file", result: &verdict.Result{Agent: "mcp-node", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Duration: time.Second,
			Unmonitored: []baseline.Unmonitored{{Arch: scmp.X86_64, Syscall: "io_uring_setup", Reason: "libuv reads files through a ring",
				Unseen: "operations submitted through an io_uring", File: "../baselines/mcp-node.yaml", Line: 21}},
			Refused: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "io_uring_enter", Count: 2, Risk: risk.IOUring}}}},
	)
	if r.Verdict() != VerdictClean {
		t.Errorf("verdict %q: an opt-in is not a failure", r.Verdict())
	}
	if a := r.Annotations(); len(a) != 2 || a[0].Level != "warning" || a[0].File != "suites/baselines/mcp-node.yaml" {
		t.Errorf("annotations %v: want a warning on the unmonitored entry and a notice", a)
	}
}

func TestRenderViolations(t *testing.T) {
	r := render(t, "violation",
		spec{text: "filesystem server reads a file", failed: "mcp-filesystem made 2 syscalls outside its baseline", result: &verdict.Result{
			Agent: "mcp-filesystem", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: 2 * time.Second,
			Violations: verdict.Violations{
				{Arch: scmp.X86_64, Syscall: "ptrace", Count: 4, Risk: risk.ProcessAccess, PID: 4242, Exe: "/usr/bin/node", Comm: "node",
					Also: []verdict.Caller{{PID: 4243, Exe: "/usr/bin/gdb", Comm: "gdb", Count: 2}}, More: 1,
					File: "../baselines/mcp-filesystem.yaml", Line: 17},
				{Arch: scmp.X86_64, Syscall: "openat2", Count: 3, PID: 4250, Exe: "/opt/tools/a,b:c%d", Comm: "helper",
					File: "../baselines/mcp-filesystem.yaml", Line: 12},
				{Arch: scmp.I386, Syscall: "socketcall", Count: 1, PID: 4251, Exe: "/usr/lib/legacy32", Comm: "legacy32",
					File: "../baselines/mcp-filesystem.yaml", Line: 30},
			},
			Unused: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "flock", File: "../baselines/mcp-filesystem.yaml", Line: 9},
				{Arch: scmp.X86_64, Syscall: "fsync", File: "../baselines/mcp-filesystem.yaml", Line: 10}},
			Leaked: []verdict.Leak{{PID: 4260, Exe: "/usr/bin/sleep", Lived: 1500 * time.Millisecond}},
		}},
		spec{text: "filesystem server writes a file", failed: "mcp-filesystem made 1 syscall outside its baseline", result: &verdict.Result{
			Agent: "mcp-filesystem", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			Violations: verdict.Violations{
				{Arch: scmp.X86_64, Syscall: "openat2", Count: 2, PID: 4300, Exe: "/usr/bin/node", Comm: "node",
					File: "/repo/suites/baselines/mcp-filesystem.yaml", Line: 12},
			},
			Unused: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "flock", File: "../baselines/mcp-filesystem.yaml", Line: 9}},
		}},
		spec{text: "memory server stores an entity", result: &verdict.Result{Agent: "mcp-memory", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Duration: 700 * time.Millisecond}},
		// An arm64 runner before any aarch64 list was recorded: every
		// syscall is new, and the report says how to record the list.
		spec{text: "memory server on arm64", failed: "mcp-memory made 1 syscall outside its baseline", result: &verdict.Result{
			Agent: "mcp-memory", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.AArch64, MissingArch: true,
			Duration: 800 * time.Millisecond,
			Violations: verdict.Violations{{Arch: scmp.AArch64, Syscall: "openat", Count: 9, PID: 4400, Exe: "/usr/bin/node", Comm: "node",
				File: "../baselines/mcp-memory.yaml", Line: 3}},
		}},
	)
	if r.Verdict() != VerdictViolation {
		t.Errorf("verdict %q, want violation", r.Verdict())
	}
	// The annotation for each new syscall lands on the baseline line where
	// its entry belongs, with the path relative to the repository root.
	want := map[string]string{
		"ptrace":     "file=suites/baselines/mcp-filesystem.yaml,line=17,",
		"openat2":    "file=suites/baselines/mcp-filesystem.yaml,line=12,",
		"socketcall": "file=suites/baselines/mcp-filesystem.yaml,line=30,",
	}
	found := map[string]int{}
	for _, a := range r.Annotations() {
		if a.Level != "error" {
			continue
		}
		for name, props := range want {
			if strings.Contains(a.Title, " "+name+" ") {
				found[name]++
				if !strings.Contains(a.String(), props) {
					t.Errorf("annotation for %s: %s; want %s", name, a, props)
				}
			}
		}
	}
	for name := range want {
		if found[name] == 0 {
			t.Errorf("no error annotation for %s", name)
		}
	}
}

// TestRenderClasses: new argument classes with their risk level and what
// the baseline allows of their syscall.
func TestRenderClasses(t *testing.T) {
	render(t, "classes",
		spec{text: "fetch server fetches a page", failed: "mcp-fetch made 4 syscalls outside its baseline", result: &verdict.Result{
			Agent: "mcp-fetch", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			Violations: verdict.Violations{
				{Arch: scmp.X86_64, Syscall: "socket(AF_PACKET)", Count: 2, Risk: risk.RawNetwork, Level: risk.High,
					Allowed: []string{"socket(AF_INET)", "socket(AF_UNIX)"}, PID: 5100, Exe: "/usr/bin/node", Comm: "node",
					File: "../baselines/mcp-fetch.yaml", Line: 20},
				{Arch: scmp.X86_64, Syscall: "prctl(PR_SET_DUMPABLE)", Count: 1, Risk: risk.ProcessAccess, Level: risk.Medium,
					PID: 5100, Exe: "/usr/bin/node", Comm: "node", File: "../baselines/mcp-fetch.yaml", Line: 14},
				{Arch: scmp.X86_64, Syscall: "openat(create)", Count: 3, Allowed: []string{"openat(read)"}, PID: 5101, Exe: "/usr/bin/node", Comm: "node",
					File: "../baselines/mcp-fetch.yaml", Line: 12},
				{Arch: scmp.X86_64, Syscall: "statx", Count: 1, PID: 5101, Exe: "/usr/bin/node", Comm: "node",
					File: "../baselines/mcp-fetch.yaml", Line: 12},
			},
			Unused: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "mprotect(W+X)", Risk: risk.ExecMemory, Level: risk.High,
				File: "../baselines/mcp-fetch.yaml", Line: 9}},
		}},
	)
}

func TestRenderInconclusiveRun(t *testing.T) {
	r := render(t, "inconclusive",
		spec{text: "filesystem server lists a directory", failed: "run inconclusive: audit events lost", result: &verdict.Result{
			Agent: "mcp-filesystem", Mode: baseline.ModeCheck, Verdict: verdict.VerdictInconclusive, Arch: scmp.AArch64, Duration: 3 * time.Second,
			Inconclusive: "audit events lost during the run", Loss: observe.Loss{ENOBUFS: 2, SerialGaps: 17}}},
		spec{text: "memory server stores an entity", result: &verdict.Result{Agent: "mcp-memory", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.AArch64, Duration: 900 * time.Millisecond}},
		spec{leafType: types.NodeTypeSynchronizedBeforeSuite, failed: "npm ci failed: exit status 1"},
	)
	if r.Verdict() != VerdictInconclusive {
		t.Errorf("verdict %q, want inconclusive", r.Verdict())
	}
}

func TestAnnotationEscaping(t *testing.T) {
	a := Annotation{Level: "error", File: "a,b:c.yaml", Line: 3, Title: "50%: x,y", Message: "line1\r\nline2 100%"}
	want := "::error file=a%2Cb%3Ac.yaml,line=3,title=50%25%3A x%2Cy::line1%0D%0Aline2 100%25"
	if got := a.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestLoadRejectsEmptyInput(t *testing.T) {
	path := writeGinkgoReport(t, fixtureSuite, spec{text: "passes without a result"})
	if _, err := Load(LoadOptions{}, path); err == nil || !strings.Contains(err.Error(), ErrNoResults.Error()) {
		t.Errorf("Load of a report without results: err = %v, want %v", err, ErrNoResults)
	}
}

// TestResultFileAndGinkgoReportAgree: a result file (check --format json)
// and the same result attached to a Ginkgo spec give the same findings;
// only the way to record the syscall differs (the CLI for a CLI run;
// for a spec, the command its caller named, here none).
func TestResultFileAndGinkgoReportAgree(t *testing.T) {
	res := &verdict.Result{Agent: "python-agent", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.AArch64,
		Violations: verdict.Violations{{Arch: scmp.AArch64, Syscall: "unshare", Count: 1, Risk: risk.Namespace,
			PID: 7, Exe: "/usr/bin/python3.12", Comm: "python3", File: "/repo/suites/baselines/python-agent.yaml", Line: 8}}}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{Root: fixtureRoot}
	fromFile, err := Load(opts, file)
	if err != nil {
		t.Fatal(err)
	}
	fromGinkgo, err := Load(opts, writeGinkgoReport(t, fixtureSuite, spec{text: "python agent", failed: "violation", result: res}))
	if err != nil {
		t.Fatal(err)
	}
	a, b := fromFile.Annotations(), fromGinkgo.Annotations()
	cliHint := "`sysgate record --merge -o suites/baselines/python-agent.yaml -- CMD` as root"
	if len(a) != 1 || len(b) != 1 || !strings.Contains(a[0].Message, cliHint) ||
		strings.Replace(a[0].Message, " (or run "+cliHint+")", "", 1) != b[0].Message {
		t.Fatalf("result file: %v\nGinkgo report: %v", a, b)
	}
	if want := "file=suites/baselines/python-agent.yaml,line=8,"; !strings.Contains(a[0].String(), want) {
		t.Errorf("%s: want %s", a[0], want)
	}
}

// TestAnnotationsGroupAndCap: syscalls that belong at the same baseline
// line share one annotation (risky ones keep their own), and past GitHub's
// per-step limit the last annotation counts what the summary lists.
func TestAnnotationsGroupAndCap(t *testing.T) {
	res := &verdict.Result{Agent: "sh", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64}
	add := func(name string, line int, class risk.Class) {
		res.Violations = append(res.Violations, verdict.Violation{Arch: scmp.X86_64, Syscall: name, Count: 1, Risk: class,
			PID: 1, Exe: "/bin/sh", File: "/repo/b.yaml", Line: line})
	}
	add("getuid", 5, "")
	add("getgid", 5, "")
	add("ptrace", 5, risk.ProcessAccess)
	a := FromResults(fixtureRoot, res).Annotations()
	if len(a) != 2 || !strings.Contains(a[0].Title, "risky syscall ptrace") || !strings.Contains(a[1].Title, "2 new syscalls (x86_64) by sh: getgid, getuid") {
		t.Fatalf("grouping: %v", a)
	}
	for i := range 12 {
		add(fmt.Sprintf("name%02d", i), 10+i, "")
	}
	a = FromResults(fixtureRoot, res).Annotations()
	if len(a) != MaxAnnotations {
		t.Fatalf("%d annotations, want %d: %v", len(a), MaxAnnotations, a)
	}
	// 1 risky + 1 group + 7 single shown; the rest: 5 singles.
	if last := a[len(a)-1]; last.Title != "sysgate: 5 more new syscalls" || last.File != "" {
		t.Errorf("last annotation %v", last)
	}
}

// TestRecordModeRunIsNotAViolation: in record mode new syscalls are what
// the update adds; a shard's summary says so instead of failing.
func TestRecordModeRunIsNotAViolation(t *testing.T) {
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeRecord, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64,
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "statx", Count: 1, PID: 2, Exe: "/usr/bin/python3"}}}
	r, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite, spec{text: "records", result: res}))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != VerdictRecorded || !strings.Contains(b.String(), "| py | x86_64 | 📝 recorded, new syscalls |") || strings.Contains(b.String(), "Caught on purpose") {
		t.Errorf("verdict %q\n%s", r.Verdict(), b.String())
	}
}

func TestNoticesAreCapped(t *testing.T) {
	res := &verdict.Result{Agent: "sh", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean, Arch: scmp.X86_64}
	for i := range 15 {
		res.Unused = append(res.Unused, baseline.Finding{Arch: scmp.X86_64, Syscall: fmt.Sprintf("s%02d", i), File: "/repo/b.yaml", Line: i + 1})
	}
	a := FromResults(fixtureRoot, res).Annotations()
	if len(a) != MaxAnnotations || a[len(a)-1].Title != "sysgate: 6 more unused baseline entries" || a[len(a)-1].Level != "notice" {
		t.Fatalf("%d annotations, last %v", len(a), a[len(a)-1])
	}
}

// TestRenderPrograms: a suite's report merges a program over the runs of
// an agent, annotates it at its baseline line (relative to the
// repository), notes stale program entries only when every run left them
// unused, and names the programs of a bite it caught.
func TestRenderPrograms(t *testing.T) {
	resultGolden(t, "programs", programResult(), "github")
	file := "../baselines/python-agent.yaml"
	second := programViolations(file)[:1]
	second[0].PID, second[0].Count = 90, 5
	r := render(t, "programs",
		spec{text: "python agent fetches a page", failed: "python-agent ran 4 programs outside its baseline", result: &verdict.Result{
			Agent: "python-agent", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			ProgramViolations: programViolations(file), UnverifiedExecs: 2,
			UnverifiedOutside: []verdict.UnverifiedExec{{Path: "/usr/bin/x86_64-linux-gnu-gcc-12", Count: 1}},
			UnusedPrograms: []baseline.ProgramFinding{{Program: "/usr/bin/git", File: file, Line: 22},
				{Program: "/usr/bin/ssh", Risk: risk.Downloader, Level: risk.High, File: file, Line: 23}}}},
		spec{text: "python agent fetches again", failed: "python-agent ran 1 program outside its baseline", result: &verdict.Result{
			Agent: "python-agent", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			ProgramViolations: second, UnverifiedExecs: 1,
			UnusedPrograms: []baseline.ProgramFinding{{Program: "/usr/bin/ssh", Risk: risk.Downloader, Level: risk.High, File: file, Line: 23}}}},
		spec{text: "python agent is caught running a shell", result: &verdict.Result{
			Agent: "python-agent-bite-shell", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			ProgramViolations: []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/dash", Argv: []string{"sh", "-c", "id"},
				Parent: "/usr/bin/python3.12", PID: 7, Count: 1, Risk: risk.Shell, Level: risk.High}, File: file, Line: 20}}}},
	)
	if r.Verdict() != VerdictViolation {
		t.Errorf("verdict %q, want violation", r.Verdict())
	}
	var curl, stale []Annotation
	for _, a := range r.Annotations() {
		switch {
		case strings.Contains(a.Title, "/usr/bin/curl"):
			curl = append(curl, a)
		case a.Level == "notice":
			stale = append(stale, a)
		}
	}
	if len(curl) != 1 || curl[0].Level != "error" || !strings.Contains(curl[0].String(), "file=suites/baselines/python-agent.yaml,line=20,") ||
		!strings.Contains(curl[0].Message, "7 times") {
		t.Errorf("curl annotations %v: want one error at suites/baselines/python-agent.yaml:20 with both runs' 7 execs", curl)
	}
	if len(stale) != 1 || !strings.Contains(stale[0].Title, "/usr/bin/ssh") {
		t.Errorf("stale notices %v: want /usr/bin/ssh only (git was used by the second run)", stale)
	}
}

// TestProgramAnnotationsShareTheCap: program errors come first, and the
// syscalls get the room GitHub has left, so no error is dropped unsaid.
func TestProgramAnnotationsShareTheCap(t *testing.T) {
	res := programResult()
	res.UnverifiedExecs, res.UnverifiedOutside, res.UnusedPrograms = 0, nil, nil
	res.Violations = nil
	for i := range 12 {
		res.Violations = append(res.Violations, verdict.Violation{Arch: scmp.X86_64, Syscall: fmt.Sprintf("name%02d", i), Count: 1,
			PID: 1, Exe: "/bin/sh", File: "/repo/b.yaml", Line: 10 + i})
	}
	a := FromResults(fixtureRoot, res).Annotations()
	if len(a) != MaxAnnotations || !strings.Contains(a[0].Title, "exec mismatch") || a[len(a)-1].Title != "sysgate: 7 more new syscalls" {
		t.Errorf("%d annotations, first %q, last %q; want %d, the mismatch first, the overflow of 7 syscalls last", len(a), a[0].Title, a[len(a)-1].Title, MaxAnnotations)
	}
}
