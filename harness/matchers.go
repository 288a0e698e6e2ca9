package harness

import (
	"fmt"
	"strings"

	"github.com/onsi/gomega/format"
	"github.com/onsi/gomega/types"

	"github.com/sysgate/sysgate/baseline"
)

// UpdateHint tells a user how to accept new syscalls.
const UpdateHint = "If the new syscalls are expected, add them to the baseline with a reason, or run " +
	"`make baseline-update` (SYSGATE_RECORD=1) and review the baseline diff in the pull request."

// StayWithinBaseline succeeds when a *Result made no syscall outside its
// baseline. With paths it diffs the result's observation against those
// baseline files instead (useful for a record-mode result). On an
// inconclusive result it errors, for To and NotTo alike. A record-mode
// result that learned (its observation went into a file through
// WithObservationFile, as in make baseline-update) succeeds: its new
// syscalls are for the baseline diff, reviewed in the pull request.
func StayWithinBaseline(paths ...string) types.GomegaMatcher {
	return &withinBaselineMatcher{paths: paths}
}

type withinBaselineMatcher struct {
	paths      []string
	result     *Result
	violations Violations
}

func (m *withinBaselineMatcher) Match(actual any) (bool, error) {
	r, err := resultOf("StayWithinBaseline", actual)
	if err != nil {
		return false, err
	}
	m.result, m.violations = r, r.Violations
	if err := inconclusive("StayWithinBaseline", r); err != nil {
		return false, err
	}
	if len(m.paths) > 0 {
		p, err := baseline.LoadStack(m.paths...)
		if err != nil {
			return false, err
		}
		m.violations = violationsAgainst(p, r)
	}
	if r.Mode == baseline.ModeRecord && r.ObservationFile != "" {
		return true, nil // learned: the new syscalls go into the baseline diff
	}
	return len(m.violations) == 0 && r.UnknownABI == 0, nil
}

func (m *withinBaselineMatcher) FailureMessage(any) string {
	r := m.result
	if r == nil {
		return "StayWithinBaseline: no result"
	}
	if !r.Conclusive() {
		return inconclusive("StayWithinBaseline", r).Error()
	}
	return violationMessage(r, m.violations, m.baselines())
}

func (m *withinBaselineMatcher) NegatedFailureMessage(any) string {
	if m.result == nil {
		return "StayWithinBaseline: no result"
	}
	return fmt.Sprintf("Expected %s to leave its baseline (%s), but it made no syscall outside it (verdict %s)",
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

// violationMessage is the readable diff: each new syscall per arch with
// its risk, the process that made it and the baseline line to add.
func violationMessage(r *Result, vs Violations, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Expected %s to stay within %s\nbut it made %d syscalls outside it (%s mode):\n%s\n",
		r.Agent, files, len(vs), r.Mode, vs)
	if r.UnknownABI > 0 {
		fmt.Fprintf(&b, "  plus %d syscalls of an ABI sysgate cannot name\n", r.UnknownABI)
	}
	if risky := riskyCount(vs); risky > 0 {
		fmt.Fprintf(&b, "%d of them are risky: they need a reason in the baseline and a careful review.\n", risky)
	}
	if h := r.ArchHint(); h != "" {
		b.WriteString(h + "\n")
	}
	b.WriteString(UpdateHint)
	return b.String()
}

func riskyCount(vs Violations) int {
	n := 0
	for _, v := range vs {
		if v.Risk.Risky() {
			n++
		}
	}
	return n
}

// violationsAgainst diffs r's observation against p, attributing each new
// syscall to the process that made it first (known to results from Run;
// a result decoded from JSON knows it only for its own violations).
func violationsAgainst(p *baseline.Profile, r *Result) Violations {
	first := r.firstCalls
	if first == nil {
		first = map[syscallKey]*firstCall{}
		for _, v := range r.Violations {
			first[syscallKey{v.Arch, v.Syscall}] = &firstCall{number: v.Number, pid: v.PID, exe: v.Exe, comm: v.Comm, also: v.Also, more: v.More}
		}
	}
	return attribute(baseline.Diff(p, r.Observed).New, first)
}

// HaveObserved succeeds when a *Result logged the syscall name (on any
// arch). In check and enforce mode only syscalls outside the baseline are
// logged: use record mode to see everything. On an inconclusive result it
// errors, for To and NotTo alike: what it missed may be the call.
func HaveObserved(name string) types.GomegaMatcher { return &observedMatcher{name: name} }

type observedMatcher struct {
	name   string
	result *Result
}

func (m *observedMatcher) Match(actual any) (bool, error) {
	r, err := resultOf("HaveObserved", actual)
	if err != nil {
		return false, err
	}
	m.result = r
	if err := inconclusive("HaveObserved", r); err != nil {
		return false, err
	}
	return r.Saw(m.name), nil
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

func observedList(r *Result) string {
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
func inconclusive(matcher string, r *Result) error {
	if r.Conclusive() {
		return nil
	}
	return fmt.Errorf("%s: the run of %s was inconclusive, so nothing can be concluded from it either way: %s\n"+
		"`sysgate doctor` checks what the machine needs for a conclusive run.", matcher, r.Agent, r.Inconclusive)
}

func resultOf(matcher string, actual any) (*Result, error) {
	r, ok := actual.(*Result)
	if !ok || r == nil {
		return nil, fmt.Errorf("%s expects a non-nil *harness.Result, got\n%s", matcher, format.Object(actual, 1))
	}
	return r, nil
}

// RunError is the error form of a result that is not clean, so
// Expect(r.Err()).To(Succeed()) prints the readable diff.
type RunError struct{ Result *Result }

// Err returns nil for a clean run, else a *RunError.
func (r *Result) Err() error {
	if r.Verdict == VerdictClean {
		return nil
	}
	return &RunError{Result: r}
}

func (e *RunError) Error() string { return e.Result.Summary() }

// FormattedGomegaError is what Gomega prints for the error.
func (e *RunError) FormattedGomegaError() string {
	r := e.Result
	if !r.Conclusive() {
		return fmt.Sprintf("sysgate: run of %s was inconclusive: %s", r.Agent, r.Inconclusive)
	}
	files := strings.Join(r.Baselines, ", ")
	if files == "" {
		files = "its baseline"
	}
	return violationMessage(r, r.Violations, files)
}
