package ci

import (
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
)

// FromResult converts one harness result into a Run. spec is the Ginkgo
// spec that attached it ("" for a result file); hostArch names the run's
// arch when the result does not.
func FromResult(r *harness.Result, spec, hostArch string) Run {
	run := Run{
		Agent:        r.Agent,
		Spec:         spec,
		Verdict:      Verdict(r.Verdict),
		Inconclusive: r.Inconclusive,
		ArchHint:     r.ArchHint(),
		Loss:         r.Loss,
		Leaked:       r.Leaked,
		Observed:     r.Observed,
		ExitStatus:   r.ExitStatus,
		Signal:       r.Signal,
		TimedOut:     r.TimedOut,
		Duration:     r.Duration,
		Arch:         hostArch,
	}
	if r.Mode != 0 {
		run.Mode = r.Mode.String()
	}
	if r.Mode == baseline.ModeRecord && r.Verdict == harness.VerdictViolation {
		run.Verdict = VerdictRecorded
	}
	if r.Arch.Valid() {
		run.Arch = r.Arch.String()
	}
	for _, v := range r.Violations {
		run.New = append(run.New, NewSyscall{Arch: v.Arch.String(), Syscall: v.Syscall, Count: v.Count, Risk: string(v.Risk),
			PID: v.PID, Exe: v.Exe, Comm: v.Comm, Also: v.Also, More: v.More, File: v.File, Line: v.Line})
	}
	for _, u := range r.Unused {
		run.Stale = append(run.Stale, Stale{Arch: u.Arch.String(), Syscall: u.Syscall, Risk: string(u.Risk), File: u.File, Line: u.Line})
	}
	return run
}

// FromResults builds a report from results in hand (sysgate check
// --format github), with baseline paths made relative to root.
func FromResults(root string, results ...*harness.Result) *Report {
	r := &Report{}
	for _, res := range results {
		r.addRun(FromResult(res, "", ""), root, "")
	}
	r.sort()
	return r
}
