package harness

import (
	"maps"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// addPrograms fills the programs part of a result from the run's book:
// every program run, those outside the profile (when it gates programs;
// never in record mode, which learns them) and the execs that ran
// another program than they named (always).
func addPrograms(r *verdict.Result, b *programBook, p *baseline.Profile, mode baseline.Mode) (unseen []string) {
	r.Programs = b.programs()
	b.mu.Lock()
	mismatches := append([]verdict.ProgramViolation(nil), b.mismatches...)
	r.UnverifiedExecs = b.unverified
	unverified := maps.Clone(b.unverifiedPaths)
	unseen = append([]string(nil), b.unseen...)
	r.AddNotKept(b.notKept)
	b.mu.Unlock()
	for i := range r.Programs {
		run := &r.Programs[i]
		run.Risk, run.Level = risk.OfProgram(run.Path)
		r.Observed.AddProgram(run.Path, run.Count)
		for _, sum := range run.SHA256 {
			r.Observed.AddProgramSHA256(run.Path, sum)
		}
		if inWorkspace(run.Path, b.workspace) {
			r.Observed.AddHeldProgram(run.Path)
		}
	}
	r.Warnings = append(r.Warnings, writableNotes(r.Programs, p)...)
	gated := mode != baseline.ModeRecord && p.GatesPrograms()
	for _, run := range r.Programs {
		if gated && !p.AllowsProgram(run.Path) {
			v := verdict.ProgramViolation{ProgramRun: run}
			v.File, v.Line = p.ProgramInsert(run.Path)
			v.Fix = p.ProgramLine(run.Path)
			r.ProgramViolations = append(r.ProgramViolations, v)
		}
	}
	for _, m := range mismatches {
		m.Risk, m.Level = risk.OfProgram(m.Path)
		if p != nil {
			m.File, m.Line = p.ProgramInsert(m.Path)
		}
		r.ProgramViolations = append(r.ProgramViolations, m)
	}
	if gated {
		r.UnverifiedOutside = unverifiedOutside(unverified, p)
	}
	if p != nil && mode == baseline.ModeRecord {
		return unseen
	}
	if gated {
		r.UnusedPrograms = baseline.Diff(p, r.Observed).UnusedPrograms
	}
	return unseen
}

// unverifiedOutside are the unverified execs that named a program outside
// the profile's programs, by path.
func unverifiedOutside(byPath map[string]uint64, p *baseline.Profile) []verdict.UnverifiedExec {
	var out []verdict.UnverifiedExec
	for path, n := range byPath {
		if !p.AllowsProgram(path) {
			out = append(out, verdict.UnverifiedExec{Path: path, Count: n})
		}
	}
	slices.SortFunc(out, func(a, b verdict.UnverifiedExec) int { return strings.Compare(a.Path, b.Path) })
	return out
}
