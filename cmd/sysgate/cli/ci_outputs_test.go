package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/verdict"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
)

func TestGitHubOutputWithoutTheVariableExitsTwo(t *testing.T) {
	for _, verb := range []string{"check", "enforce", "record"} {
		var out, errb bytes.Buffer
		c := &Command{Stdout: &out, Stderr: &errb, Env: []string{"PATH=/usr/bin:/bin"}}
		args := []string{"sysgate", verb, "-b", "base.yaml", "--github-output", "--", "true"}
		if verb == "record" {
			args[2] = "-o"
		}
		if code := c.Main(args); code != ExitUsage || !strings.Contains(errb.String(), "GITHUB_OUTPUT is not set") {
			t.Errorf("%s: code %d, stderr %q; want 2 naming GITHUB_OUTPUT", verb, code, errb.String())
		}
	}
}

// violationReport is a Ginkgo report of one run with a risky new syscall.
func violationReport(t *testing.T) string {
	t.Helper()
	return ginkgoReport(t, &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64,
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "bpf", Number: 321, Count: 2, Risk: risk.KernelObserve,
			PID: 9, Exe: "/usr/bin/python3", Comm: "python3", File: "/repo/b/py.yaml", Line: 4}}})
}

func TestReportSARIF(t *testing.T) {
	code, stdout, stderr := run(t, "report", "sarif", "--root", "/repo", violationReport(t))
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	log, err := sarif.FromString(stdout)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 {
		t.Fatalf("%s", stdout)
	}
	res := log.Runs[0].Results[0]
	loc := res.Locations[0].PhysicalLocation
	if *res.RuleID != "syscall/bpf" || *loc.ArtifactLocation.URI != "b/py.yaml" || *loc.Region.StartLine != 4 {
		t.Errorf("%s\nwant syscall/bpf at b/py.yaml:4", stdout)
	}
}

// checkJUnit reads a JUnit file back: well-formed, one testcase for
// agent, failed when wantFailure.
func checkJUnit(t *testing.T, path, agent string, wantFailure bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 {
		t.Fatalf("%s: want one testcase\n%s", path, data)
	}
	c := doc.Suites[0].Cases[0]
	if c.Name != agent || (c.Failure != nil) != wantFailure {
		t.Errorf("%s: testcase %q failed=%v; want %q failed=%v\n%s", path, c.Name, c.Failure != nil, agent, wantFailure, data)
	}
}

func TestReportJUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	if code, _, stderr := run(t, "report", "summary", "--junit", path, violationReport(t)); code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	checkJUnit(t, path, "py", true)
}

// A real run: check writes SARIF on stdout, JUnit to --junit and its
// verdict to $GITHUB_OUTPUT, appending to what the job's earlier steps
// wrote and refusing a link planted there.
func TestCheckCIOutputs(t *testing.T) {
	testutil.RequireAudit(t)
	base := recordSh(t, `exit 0`)
	dir := t.TempDir()
	junit, ghOut := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "github_output")
	if err := os.WriteFile(ghOut, []byte("earlier=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_OUTPUT", ghOut)
	code, stdout, stderr := runAgentVerb(t, "check", "-b", base, "--agent", "sh-agent", "--format", "sarif", "--junit", junit, "--github-output",
		"--", "sh", "-c", "cat /proc/uptime >/dev/null")
	if code != ExitViolation || !strings.Contains(stdout, `"version": "2.1.0"`) || !strings.Contains(stdout, `"ruleId": "syscall/`) {
		t.Fatalf("code %d\n%s\n%s", code, stdout, stderr)
	}
	checkJUnit(t, junit, "sh-agent", true)
	got, _ := os.ReadFile(ghOut)
	if !strings.HasPrefix(string(got), "earlier=1\nverdict=violation\nviolations=") {
		t.Errorf("$GITHUB_OUTPUT: %q", got)
	}

	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "linked_output")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_OUTPUT", link)
	code, _, stderr = runAgentVerb(t, "check", "-b", base, "--github-output", "--", "sh", "-c", "exit 0")
	if code != ExitInconclusive || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("a planted link: code %d, stderr %s", code, stderr)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep" {
		t.Errorf("written through the link: %q", data)
	}
	if _, err := os.Lstat(link); err != nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link: %v", err)
	}
}

// A report step (the action's, over Ginkgo JSON) sets the same outputs a
// check step does; without $GITHUB_OUTPUT it is a usage error.
func TestReportGitHubOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "github_output")
	var stdout, stderr bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &stderr, Env: []string{"GITHUB_OUTPUT=" + out}}
	if code := c.Main([]string{"sysgate", "report", "summary", "--github-output", violationReport(t)}); code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "verdict=violation\nviolations=") || strings.HasSuffix(string(data), "violations=0\n") {
		t.Errorf("$GITHUB_OUTPUT holds %q; want verdict=violation and a non-zero count", data)
	}
	c = &Command{Stdout: &stdout, Stderr: &stderr, Env: []string{}}
	if code := c.Main([]string{"sysgate", "report", "summary", "--github-output", violationReport(t)}); code != ExitUsage {
		t.Errorf("without GITHUB_OUTPUT: code %d, want %d", code, ExitUsage)
	}
}

// --exit-code: a record run that learned syscalls passes (exit 0), as the
// action's record jobs need; a violation is 1 and an inconclusive run 3.
func TestReportExitCodeVerdicts(t *testing.T) {
	for v, want := range map[ci.Verdict]int{ci.VerdictClean: ExitOK, ci.VerdictRecorded: ExitOK,
		ci.VerdictViolation: ExitViolation, ci.VerdictInconclusive: ExitInconclusive, ci.VerdictAgentFailed: ExitAgentFailed} {
		if got := verdictCode(v); got != want {
			t.Errorf("verdictCode(%s) = %d, want %d", v, got, want)
		}
	}
}
