package ci

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

// loadFixtureReport is a Ginkgo report with a run of every outcome: a
// violation, a caught bite, an inconclusive run, a clean run and a spec
// that failed without a result.
func loadFixtureReport(t *testing.T) *Report {
	t.Helper()
	path := writeGinkgoReport(t, fixtureSuite,
		spec{text: "filesystem server reads a file", failed: "mcp-filesystem made 1 syscall outside its baseline", result: &verdict.Result{
			Agent: "mcp-filesystem", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: 2 * time.Second,
			Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "ptrace", Number: 101, Count: 4, Risk: risk.ProcessAccess, PID: 4242,
				Exe: "/usr/bin/node", Comm: "node", File: "../baselines/mcp-filesystem.yaml", Line: 17}}}},
		spec{text: "filesystem server is caught moving a file", result: &verdict.Result{Agent: "mcp-filesystem-bite-move", Mode: baseline.ModeCheck,
			Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: 500 * time.Millisecond,
			Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "rename", Number: 82, Count: 1, PID: 3, Exe: "/usr/bin/node", Comm: "node",
				File: "../baselines/mcp-filesystem.yaml", Line: 11}}}},
		spec{text: "git server clones <a & b>", failed: "run inconclusive: audit events lost", result: &verdict.Result{
			Agent: "mcp-git", Mode: baseline.ModeCheck, Verdict: verdict.VerdictInconclusive, Arch: scmp.X86_64, Duration: 3 * time.Second,
			Inconclusive: "audit events lost during the run", Loss: observe.Loss{ENOBUFS: 2}}},
		spec{text: "memory server stores an entity", result: &verdict.Result{Agent: "mcp-memory", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Duration: 800 * time.Millisecond}},
		spec{text: "fetch server installs", failed: "npm ci failed: exit status 1"},
	)
	r, err := Load(LoadOptions{Root: fixtureRoot, HostArch: scmp.X86_64}, path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// junitDoc is what the test reads back: the counts and each testcase.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Cases []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Failure   *struct {
				Type string `xml:"type,attr"`
				Text string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// wellFormed reads every token of an XML document, so a stray character
// or unclosed element fails.
func wellFormed(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, data)
		}
	}
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := loadFixtureReport(t).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.junit.xml", b.Bytes())
	wellFormed(t, b.Bytes())
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 5 || doc.Failures != 3 || len(doc.Suites) != 1 {
		t.Fatalf("tests %d, failures %d, suites %d; want 5, 3 (violation, inconclusive, spec failure), 1", doc.Tests, doc.Failures, len(doc.Suites))
	}
	failed := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		if c.Skipped != nil {
			t.Errorf("%s skipped: sysgate never skips", c.Name)
		}
		if c.Failure != nil {
			failed[c.Name] = c.Failure.Type
			if c.Failure.Text == "" {
				t.Errorf("%s: a failure without the report text", c.Name)
			}
		}
	}
	if failed["mcp-filesystem"] != "violation" || failed["mcp-git"] != "inconclusive" || failed["mcp-filesystem-bite-move"] != "" || failed["mcp-memory"] != "" {
		t.Errorf("failures %v", failed)
	}
}

func TestJUnitOfOneResult(t *testing.T) {
	var b bytes.Buffer
	if err := FromResults("", fixtureResult()).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "result.violation.junit.xml", b.Bytes())
	wellFormed(t, b.Bytes())
	if !strings.Contains(b.String(), `<testcase name="python-agent" classname="sysgate"`) {
		t.Errorf("no testcase for the agent, class sysgate:\n%s", b.String())
	}
}

// driftedResult is the fixture's violation in another environment than
// its baselines were recorded in.
func driftedResult() *verdict.Result {
	r := fixtureResult()
	r.Drift = &verdict.Drift{Recorded: true, Changes: []baseline.EnvChange{{Part: "libc", Was: "glibc 2.36", Now: "glibc 2.39"}}}
	return r
}

func TestDriftIsExplainedInEveryReport(t *testing.T) {
	r := FromResults("", driftedResult())
	var summary, annotations, text bytes.Buffer
	if err := r.WriteSummary(&summary); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteAnnotations(&annotations); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, driftedResult(), Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "environment drift: glibc 2.36 → 2.39: these 4 new syscalls are most likely environment drift"
	for name, out := range map[string]string{"summary": summary.String(), "annotations": annotations.String(), "text": text.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s does not explain the drift:\n%s", name, out)
		}
	}
	if !strings.Contains(annotations.String(), "title=sysgate%3A environment drift for python-agent") {
		t.Errorf("no drift annotation:\n%s", annotations.String())
	}
}

func TestGitHubOutput(t *testing.T) {
	for _, tc := range []struct {
		r    *Report
		want string
	}{
		{FromResults("", fixtureResult()), "verdict=violation\nviolations=4\ndrift=false\n"},
		{FromResults("", cleanResult()), "verdict=clean\nviolations=0\ndrift=false\n"},
		{loadFixtureReport(t), "verdict=violation\nviolations=1\ndrift=false\n"},
		{FromResults("", driftedResult()), "verdict=violation\nviolations=4\ndrift=true\n"},
	} {
		var b bytes.Buffer
		if err := tc.r.WriteGitHubOutput(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("got %q, want %q", b.String(), tc.want)
		}
	}
}
