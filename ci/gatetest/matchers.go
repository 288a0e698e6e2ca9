package gatetest

import (
	"fmt"
	"strings"

	"github.com/onsi/gomega/format"
	"github.com/onsi/gomega/types"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/verdict"
)

// StayWithinBaseline succeeds when a *verdict.Result made no syscall
// outside its baseline. With paths it diffs the result's observation
// against those baseline files instead (useful for a record-mode result).
// The verdict's order holds: a violation fails To (and passes NotTo) even
// when the run was also inconclusive; an inconclusive run without one
// errors, for To and NotTo alike; a clean run whose agent failed fails To.
// A
// record-mode result that learned (its observation went into a file
// through harness.WithObservationFile, as in make baseline-update)
// succeeds: its new syscalls are for the baseline diff, reviewed in the
// pull request.
func StayWithinBaseline(paths ...string) types.GomegaMatcher {
	return &withinBaselineMatcher{paths: paths}
}

type withinBaselineMatcher struct {
	paths      []string
	result     *verdict.Result
	violations verdict.Violations
	programs   []verdict.ProgramViolation
}

func (m *withinBaselineMatcher) Match(actual any) (bool, error) {
	r, err := resultOf("StayWithinBaseline", actual)
	if err != nil {
		return false, err
	}
	m.result, m.violations, m.programs = r, r.Violations, r.ProgramViolations
	if len(m.paths) > 0 {
		p, err := baseline.LoadStackFor(r.Selector, m.paths...)
		if err != nil {
			if ierr := inconclusive("StayWithinBaseline", r); ierr != nil {
				return false, ierr
			}
			return false, err
		}
		m.violations = r.ViolationsAgainst(p)
		m.programs = r.ProgramViolationsAgainst(p)
	}
	if r.Mode == baseline.ModeRecord && r.ObservationFile != "" && r.Conclusive() {
		return true, nil // learned: the new syscalls go into the baseline diff
	}
	// Same order as the verdict: a violation seen is evidence, whatever
	// else went wrong; else an inconclusive run proves nothing either way;
	// else a failed agent fails.
	// File violations are the run's own: judged against its baselines
	// with the run's placeholder values, which only the run knew.
	if len(m.violations) > 0 || len(m.programs) > 0 || len(r.FileViolations) > 0 || r.UnknownABI > 0 {
		return false, nil
	}
	if err := inconclusive("StayWithinBaseline", r); err != nil {
		return false, err
	}
	if r.Verdict == verdict.VerdictAgentFailed {
		return false, nil
	}
	return true, nil
}

func (m *withinBaselineMatcher) FailureMessage(any) string {
	r := m.result
	if r == nil {
		return "StayWithinBaseline: no result"
	}
	if len(m.violations) == 0 && len(m.programs) == 0 && len(r.FileViolations) == 0 && r.UnknownABI == 0 {
		if err := inconclusive("StayWithinBaseline", r); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("Expected %s to succeed within its baseline (%s): its syscalls did, but the agent %s\n"+
			"A failing agent fails the gate; harness.WithAllowAgentFailure() accepts it.", r.Agent, m.baselines(), ci.ExitText(r))
	}
	msg := ci.ViolationReport(r, m.violations, m.programs, m.baselines())
	if !r.Conclusive() {
		msg += "\nThe run was also inconclusive (more may have been missed): " + r.Inconclusive
	}
	return msg
}

func (m *withinBaselineMatcher) NegatedFailureMessage(any) string {
	if m.result == nil {
		return "StayWithinBaseline: no result"
	}
	return fmt.Sprintf("Expected %s to leave its baseline (%s), but it made no syscall, ran no program and touched no file outside it (verdict %s)",
		m.result.Agent, m.baselines(), m.result.Verdict)
}

func (m *withinBaselineMatcher) baselines() string {
	files := m.paths
	if len(files) == 0 && m.result != nil {
		files = m.result.Baselines
	}
	if len(files) == 0 {
		return "no baseline file"
	}
	return strings.Join(files, ", ")
}

// HaveObserved succeeds when a *verdict.Result logged the syscall name (on
// any arch). In check and enforce mode only syscalls outside the baseline
// are logged: use record mode to see everything. On an inconclusive result
// it errors, for To and NotTo alike: what the run missed may be the call.
func HaveObserved(name string) types.GomegaMatcher { return &observedMatcher{name: name} }

type observedMatcher struct {
	name   string
	result *verdict.Result
}

func (m *observedMatcher) Match(actual any) (bool, error) {
	r, err := resultOf("HaveObserved", actual)
	if err != nil {
		return false, err
	}
	m.result = r
	if r.Saw(m.name) {
		return true, nil // seen is seen, whatever else the run missed
	}
	if err := inconclusive("HaveObserved", r); err != nil {
		return false, err
	}
	return false, nil
}

func (m *observedMatcher) FailureMessage(any) string {
	msg := fmt.Sprintf("Expected the run to have made %s; it logged %s", m.name, observedList(m.result))
	if m.result != nil && m.result.Mode != baseline.ModeRecord {
		msg += fmt.Sprintf("\n(%s mode logs only syscalls outside the baseline; record mode sees all)", m.result.Mode)
	}
	return msg
}

func (m *observedMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected the run not to make %s, but it did: %s", m.name, observedList(m.result))
}

func observedList(r *verdict.Result) string {
	if r == nil || r.Observed == nil {
		return "nothing"
	}
	var parts []string
	for _, arch := range r.Observed.Arches() {
		parts = append(parts, fmt.Sprintf("%s: %s", arch, strings.Join(r.Observed.Names(arch), " ")))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// inconclusive is the error every matcher returns for an inconclusive
// result, whatever the polarity: a run that may have missed records can
// show neither that a syscall was made nor that it was not.
func inconclusive(matcher string, r *verdict.Result) error {
	if r.Conclusive() {
		return nil
	}
	return fmt.Errorf("%s: the run of %s was inconclusive, so nothing can be concluded from it either way: %s\n"+
		"(`sysgate doctor` checks what the machine needs for a conclusive run)", matcher, r.Agent, r.Inconclusive)
}

func resultOf(matcher string, actual any) (*verdict.Result, error) {
	r, ok := actual.(*verdict.Result)
	if !ok || r == nil {
		return nil, fmt.Errorf("%s expects a non-nil *verdict.Result, got\n%s", matcher, format.Object(actual, 1))
	}
	return r, nil
}
