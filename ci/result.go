package ci

import (
	"cmp"
	"slices"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// FromResults builds a report from results in hand (sysgate check
// --format github), with baseline paths shown relative to root.
func FromResults(root string, results ...*verdict.Result) *Report {
	r := &Report{Root: root}
	for _, res := range results {
		r.addRun(res, "", "", 0)
	}
	r.sort()
	return r
}

// addRun adds a run of res. The report keeps its own copy of the Result,
// with its findings in a stable order and the arch filled in from hostArch
// when the result does not name it, so rendering never changes the
// caller's Result. It returns the added run.
func (r *Report) addRun(res *verdict.Result, spec, dir string, hostArch scmp.Arch) *Run {
	c := *res
	c.Violations = sortedByName(c.Violations, func(v verdict.Violation) (scmp.Arch, string) { return v.Arch, v.Syscall })
	c.Unused = sortedByName(c.Unused, func(f baseline.Finding) (scmp.Arch, string) { return f.Arch, f.Syscall })
	c.ProgramViolations = slices.Clone(c.ProgramViolations)
	slices.SortStableFunc(c.ProgramViolations, func(a, b verdict.ProgramViolation) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Mismatch, b.Mismatch))
	})
	c.UnusedPrograms = slices.Clone(c.UnusedPrograms)
	slices.SortStableFunc(c.UnusedPrograms, func(a, b baseline.ProgramFinding) int { return cmp.Compare(a.Program, b.Program) })
	if !c.Arch.Valid() {
		c.Arch = hostArch
	}
	r.Runs = append(r.Runs, Run{Result: &c, Spec: spec, Dir: dir})
	return &r.Runs[len(r.Runs)-1]
}

// archName is an arch's name, or "" for none.
func archName(a scmp.Arch) string {
	if !a.Valid() {
		return ""
	}
	return a.String()
}
