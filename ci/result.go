package ci

import (
	"time"
)

// harnessResult mirrors the harness Result JSON until harness.Result is
// committed; fromResult is the only code that reads it.
type harnessResult struct {
	Agent        string
	Mode         string
	Verdict      string
	Arch         string
	Observed     map[string]map[string]uint64
	Violations   []resultViolation
	Unused       []resultFinding
	Leaked       []Leak
	Loss         string
	Inconclusive string
	ExitStatus   int
	Signal       string
	TimedOut     bool
	Duration     time.Duration
}

// fromResult converts one harness result into a Run. spec is the Ginkgo
// spec that attached it ("" for a Result file); hostArch names the run's
// arch when the result observed nothing to tell it by.
func fromResult(r *harnessResult, spec, hostArch string) Run {
	run := Run{
		Agent:        r.Agent,
		Spec:         spec,
		Mode:         r.Mode,
		Arch:         r.Arch,
		Verdict:      Verdict(r.Verdict),
		Inconclusive: r.Inconclusive,
		Loss:         r.Loss,
		ExitStatus:   r.ExitStatus,
		Signal:       r.Signal,
		TimedOut:     r.TimedOut,
		Duration:     r.Duration,
	}
	if run.Arch == "" {
		run.Arch = hostArch
	}
	for _, v := range r.Violations {
		run.New = append(run.New, NewSyscall{Arch: v.Arch, Syscall: v.Syscall, Count: v.Count, Risk: v.Risk,
			PID: v.PID, Exe: v.Exe, Comm: v.Comm, File: v.File, Line: v.Line})
	}
	for _, u := range r.Unused {
		run.Stale = append(run.Stale, Stale{Arch: u.Arch, Syscall: u.Syscall, Risk: u.Risk, File: u.File, Line: u.Line})
	}
	run.Leaked = r.Leaked
	return run
}

type resultViolation struct {
	Arch, Syscall string
	Count         uint64
	Risk          string
	PID           int
	Exe, Comm     string
	File          string
	Line          int
}

type resultFinding struct {
	Arch, Syscall, Risk, File string
	Line                      int
}
