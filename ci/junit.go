package ci

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// The JUnit XML elements CI systems read (Jenkins, GitLab, the test
// reporters of GitHub Actions): no skipped element is ever written, since
// a run sysgate could not decide fails.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit renders the report as JUnit XML (--junit FILE): a testcase
// per agent run, named by the agent, its class the Ginkgo spec or
// "sysgate"; a run that fails the gate (a violation, no verdict, a
// failing agent) has a failure with the run's text report. A spec that
// failed without a result is a failed testcase too. A violation a passing
// spec expected (a bite) passes.
func (r *Report) WriteJUnit(w io.Writer) error {
	suite := junitSuite{Name: "sysgate"}
	var total time.Duration
	for _, run := range r.Runs {
		c := junitCase{Name: run.Agent, ClassName: cmp.Or(run.Spec, "sysgate"), Time: junitSeconds(run.Duration)}
		total += run.Duration
		if o := run.Outcome(); !run.Expected && (o == VerdictViolation || o == VerdictInconclusive || o == VerdictAgentFailed) {
			var text strings.Builder
			if err := WriteText(&text, run.Result, Palette{}); err != nil {
				return err
			}
			c.Failure = &junitFailure{Type: string(o), Message: junitMessage(run), Text: text.String()}
		}
		suite.Cases = append(suite.Cases, c)
	}
	for _, f := range r.Failures {
		suite.Cases = append(suite.Cases, junitCase{Name: f.Spec, ClassName: "sysgate", Time: junitSeconds(0),
			Failure: &junitFailure{Type: "spec-failed", Message: "spec failed without a sysgate result",
				Text: fmt.Sprintf("%s at %s: %s\n", f.State, f.Location, f.Message)}})
	}
	for _, c := range suite.Cases {
		if c.Failure != nil {
			suite.Failures++
		}
	}
	suite.Tests, suite.Time = len(suite.Cases), junitSeconds(total)
	doc := junitSuites{Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitMessage is the failure's one line: the verdict and what caused it.
func junitMessage(run Run) string {
	switch run.Outcome() {
	case VerdictViolation:
		var found []string
		if len(run.Violations) > 0 || len(run.ProgramViolations)+len(run.FileViolations)+len(run.NetworkViolations) == 0 {
			found = append(found, Count(len(run.Violations), "syscall", "syscalls"))
		}
		if len(run.ProgramViolations) > 0 {
			found = append(found, Count(len(run.ProgramViolations), "program", "programs"))
		}
		if len(run.FileViolations) > 0 {
			found = append(found, Count(len(run.FileViolations), "file access", "file accesses"))
		}
		if len(run.NetworkViolations) > 0 {
			found = append(found, Count(len(run.NetworkViolations), "destination", "destinations"))
		}
		msg := fmt.Sprintf("%s: %s outside the baseline", run.Agent, strings.Join(found, " and "))
		if n := mismatches(run.ProgramViolations); n > 0 {
			msg += fmt.Sprintf(" (%s)", Count(n, "exec mismatch", "exec mismatches"))
		}
		return msg
	case VerdictAgentFailed:
		return fmt.Sprintf("%s: the agent %s", run.Agent, ExitText(run.Result))
	}
	return fmt.Sprintf("%s: inconclusive: %s", run.Agent, OrDash(run.Inconclusive))
}

func junitSeconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
