package ci

import (
	"cmp"
	"slices"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
)

// Verdict is the outcome of one run, as the harness decided it.
type Verdict string

// Verdicts, in the order a summary ranks them: a violation is conclusive
// evidence and outranks a run that could not decide.
const (
	VerdictClean        Verdict = "clean"
	VerdictInconclusive Verdict = "inconclusive"
	VerdictViolation    Verdict = "violation"
	// VerdictRecorded is a record-mode run that saw syscalls its baseline
	// does not list yet: what a baseline update adds, not a failure.
	VerdictRecorded Verdict = "recorded"
)

func (v Verdict) rank() int {
	switch v {
	case VerdictViolation:
		return 4
	case VerdictInconclusive:
		return 3
	case VerdictRecorded:
		return 2
	case VerdictClean:
		return 1
	}
	return 0
}

// Report is the one findings model every output renders: annotations, the
// step summary and (with a baseline diff) the pull-request body.
type Report struct {
	Runs []Run
	// Failures are specs that failed without attaching a sysgate result
	// (a panic in setup, an agent that could not be installed, ...).
	Failures []SpecFailure
}

// Run is one agent run: one harness Result.
type Run struct {
	Agent string
	Spec  string // the Ginkgo spec's full text; "" for a Result file
	Mode  string
	// Arch is the run's native arch: the one most of its syscalls were
	// made on. "" when nothing was observed.
	Arch    string
	Verdict Verdict
	// Expected: a passing spec asserted this violation (a "bite": the
	// gate must catch it). It proves the gate works and fails nothing.
	Expected     bool
	Inconclusive string // why no verdict could be reached
	// ArchHint is set when the baselines had no list for the run's arch
	// (harness.Result.ArchHint): every syscall counted as new.
	ArchHint string
	Loss     auditlog.Loss
	New      []NewSyscall
	Stale    []Stale
	Leaked   []harness.Leak
	// Observed is what the run saw: everything in record mode, only the
	// syscalls outside the baseline in check and enforce mode.
	Observed   *baseline.Observation
	ExitStatus int
	Signal     string
	TimedOut   bool
	Duration   time.Duration
}

// NewSyscall is a syscall the run made that its baselines do not allow.
type NewSyscall struct {
	Arch    string
	Syscall string
	Count   uint64
	Risk    string // baseline.RiskClass; "" = not risky
	PID     int
	Exe     string
	Comm    string
	// Also and More: the other programs that made it (harness.Violation).
	Also []harness.Caller
	More int
	// File and Line: the baseline file and the line where the syscall's
	// entry would be inserted.
	File string
	Line int
}

// Stale is a baseline entry no run used.
type Stale struct {
	Arch    string
	Syscall string
	Risk    string
	File    string
	Line    int
}

// SpecFailure is a failed spec without a sysgate result.
type SpecFailure struct {
	Spec     string
	State    string
	Message  string
	Location string
}

// sort puts runs, and the findings in each, in a stable order so the
// rendered outputs do not depend on the order specs ran in.
func (r *Report) sort() {
	for i := range r.Runs {
		run := &r.Runs[i]
		slices.SortFunc(run.New, func(a, b NewSyscall) int {
			return cmp.Or(cmp.Compare(a.Arch, b.Arch), cmp.Compare(a.Syscall, b.Syscall))
		})
		slices.SortFunc(run.Stale, func(a, b Stale) int {
			return cmp.Or(cmp.Compare(a.Arch, b.Arch), cmp.Compare(a.Syscall, b.Syscall))
		})
	}
	slices.SortStableFunc(r.Runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Arch, b.Arch), cmp.Compare(a.Spec, b.Spec))
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
		if run.Verdict.rank() > v.rank() {
			v = run.Verdict
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
