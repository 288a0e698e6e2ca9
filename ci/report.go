package ci

import (
	"cmp"
	"slices"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// Verdict is the outcome of a run or a whole report, as a report ranks it:
// the harness's verdicts, and VerdictRecorded, which only a report gives.
type Verdict = verdict.Verdict

// Verdicts, in the order a summary ranks them: a violation is conclusive
// evidence and outranks a run that could not decide, which outranks an
// agent that failed with clean syscalls.
const (
	VerdictClean        = verdict.VerdictClean
	VerdictInconclusive = verdict.VerdictInconclusive
	VerdictViolation    = verdict.VerdictViolation
	VerdictAgentFailed  = verdict.VerdictAgentFailed
	// VerdictRecorded is a record-mode run that saw syscalls its baseline
	// does not list yet (verdict.Result.Recorded): what a baseline update
	// adds, not a failure. A run's own Verdict is never this.
	VerdictRecorded Verdict = "recorded"
)

// rank orders verdicts for a summary: the worst ranks highest.
func rank(v Verdict) int {
	switch v {
	case VerdictViolation:
		return 5
	case VerdictInconclusive:
		return 4
	case VerdictAgentFailed:
		return 3
	case VerdictRecorded:
		return 2
	case VerdictClean:
		return 1
	}
	return 0
}

// Report is what every CI output renders: annotations, the step summary
// and the observations a baseline update is made from. It is a list of
// runs, each a verdict.Result with what only the report knows, and the
// specs that failed without a result.
type Report struct {
	Runs []Run
	// Failures are specs that failed without attaching a sysgate result
	// (a panic in setup, an agent that could not be installed, ...).
	Failures []SpecFailure
	// Root is the repository root: baseline paths are shown relative to
	// it (baselinePath), which is what GitHub annotations need. "" shows
	// them as the results have them.
	Root string
}

// Run is one agent run: its harness Result, and where the report found it.
type Run struct {
	*verdict.Result
	// Spec is the Ginkgo spec's full text; "" for a result file or a
	// result in hand.
	Spec string
	// Expected: a passing spec asserted this violation (a "bite": the
	// gate must catch it). It proves the gate works and fails nothing.
	Expected bool
	// Dir is the directory the Result's relative baseline paths are
	// relative to: the suite's, for a Ginkgo report; "" = the current one.
	Dir string
}

// Outcome is the run's verdict as a report ranks it: the harness verdict,
// except that a record run's new syscalls and programs are recorded, not
// a violation.
func (run Run) Outcome() Verdict {
	if recorded(run.Result) {
		return VerdictRecorded
	}
	if run.Mode == baseline.ModeRecord && !run.Conclusive() {
		return VerdictInconclusive // what it recorded may be incomplete
	}
	return run.Result.Verdict
}

// arch names the arch the run ran on, or is "" when the result does not
// say (LoadOptions.HostArch fills it in where it can).
func (run Run) arch() string { return archName(run.Arch) }

// SpecFailure is a failed spec without a sysgate result.
type SpecFailure struct {
	Spec     string
	State    string
	Message  string
	Location string
}

// baselinePath is where a run's baseline file is shown: relative to the
// report's root.
func (r *Report) baselinePath(run Run, file string) string { return RepoPath(r.Root, run.Dir, file) }

// sort puts runs in a stable order so the rendered outputs do not depend
// on the order specs ran in.
func (r *Report) sort() {
	slices.SortStableFunc(r.Runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.arch(), b.arch()), cmp.Compare(a.Spec, b.Spec))
	})
	slices.SortStableFunc(r.Failures, func(a, b SpecFailure) int { return cmp.Compare(a.Spec, b.Spec) })
}

// Verdict is the worst verdict of all runs; a spec failure without a
// result counts as inconclusive.
func (r *Report) Verdict() Verdict {
	v := VerdictClean
	if len(r.Failures) > 0 {
		v = VerdictInconclusive
	}
	for _, run := range r.gateRuns() {
		if o := run.Outcome(); rank(o) > rank(v) {
			v = o
		}
	}
	return v
}

// gateRuns are the runs that decide the gate: all but the violations a
// passing spec expected.
func (r *Report) gateRuns() []Run {
	var out []Run
	for _, run := range r.Runs {
		if !run.Expected {
			out = append(out, run)
		}
	}
	return out
}

// sortedByName returns list sorted by arch name and syscall.
func sortedByName[T any](list []T, key func(T) (scmp.Arch, string)) []T {
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b T) int {
		archA, nameA := key(a)
		archB, nameB := key(b)
		return cmp.Or(cmp.Compare(archA.String(), archB.String()), cmp.Compare(nameA, nameB))
	})
	return out
}
