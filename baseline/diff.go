package baseline

import (
	"sort"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Finding is one syscall in a diff of a profile and an observation.
type Finding struct {
	Arch    scmp.Arch  `json:"arch"`
	Syscall string     `json:"syscall"`
	Count   uint64     `json:"count,omitempty"`
	Risk    risk.Class `json:"risk,omitempty"`
	Level   risk.Level `json:"level,omitempty"`
	// File and Line: for a new syscall, where its line would be inserted
	// (the agent's own file, the sorted position in that arch's list, or
	// where the arch's section would start); for an unused one, the entry.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// RiskLabel is the finding's risk as reports print it: "namespace", or
// "namespace, high" for a high one; "" when not risky.
func (f Finding) RiskLabel() string { return f.Risk.Label(f.Level) }

// DiffResult is what an observation did outside and inside a profile.
type DiffResult struct {
	New    []Finding `json:"new"`    // observed, not allowed: violations
	Unused []Finding `json:"unused"` // allowed, not observed: stale entries
	// NewPrograms: observed programs the profile does not allow (only
	// when it gates programs, see Profile.GatesPrograms); UnusedPrograms:
	// program entries of the files given to LoadStack no run matched
	// (only when the observation saw programs at all). Sorted by program.
	NewPrograms    []ProgramFinding `json:"new_programs,omitempty"`
	UnusedPrograms []ProgramFinding `json:"unused_programs,omitempty"`
	// NewFiles: observed file accesses the profile does not allow (only
	// when it gates files); UnusedFiles: files entries of the files given
	// to LoadStack that no access matched (only when files were observed).
	NewFiles    []FileFinding `json:"new_files,omitempty"`
	UnusedFiles []FileFinding `json:"unused_files,omitempty"`
	// NewNetwork, UnusedNetwork: the same for destinations (network).
	NewNetwork    []NetworkFinding `json:"new_network,omitempty"`
	UnusedNetwork []NetworkFinding `json:"unused_network,omitempty"`
}

// Diff compares an observation with a profile. New lists observed syscalls
// the profile does not allow. Unused lists entries of the files given to
// LoadStack (not their extends bases, not groups: a runtime base is shared
// and a group is by definition "expected, not necessarily seen") that no
// run made. Both are sorted by arch, then name.
func Diff(p *Profile, o *Observation) *DiffResult {
	r := &DiffResult{New: []Finding{}, Unused: []Finding{}}
	target := p.agentDoc()
	if o != nil {
		for _, arch := range o.Arches() {
			for _, name := range o.Names(arch) {
				if p.Allows(arch, name) {
					continue
				}
				f := Finding{Arch: arch, Syscall: name, Count: o.Count(arch, name), Risk: risk.Of(name), Level: risk.LevelOf(name)}
				if target != nil {
					f.File, f.Line = target.Path, target.insertLine(arch, name)
				}
				r.New = append(r.New, f)
			}
		}
	}
	for _, arch := range p.Arches() {
		for _, e := range p.Entries(arch) {
			// A listed member of the scheduling group is no stale entry
			// while the group is allowed: a run making it or not is
			// the scheduler's choice.
			if e.Group != "" || !p.direct[e.File] || o.Uses(arch, e.Name) || (!p.SchedulingExact() && scheduling.Is(e.Name)) {
				continue
			}
			r.Unused = append(r.Unused, Finding{Arch: arch, Syscall: e.Name, Risk: risk.Of(e.Name), Level: risk.LevelOf(e.Name), File: e.File, Line: e.Line})
		}
	}
	sortFindings(r.New)
	sortFindings(r.Unused)
	r.NewPrograms, r.UnusedPrograms = diffPrograms(p, o)
	r.NewFiles, r.UnusedFiles = diffFiles(p, o)
	r.NewNetwork, r.UnusedNetwork = diffNetwork(p, o)
	return r
}

func sortFindings(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		if a, b := fs[i].Arch.String(), fs[j].Arch.String(); a != b {
			return a < b
		}
		return fs[i].Syscall < fs[j].Syscall
	})
}

// insertLine returns the line a new entry for name on arch would take in
// d's syscalls list, as formatted: before the first entry sorting after
// it, after the arch's last entry, or where a new arch section (or a new
// syscalls key) would start.
func (d *Document) insertLine(arch scmp.Arch, name string) int {
	if sec := sectionFor(&d.Syscalls, arch, false); sec != nil && len(sec.Entries) > 0 {
		for _, e := range sec.Entries {
			if e.Name > name {
				return e.Line - commentLines(e.Comment)
			}
		}
		return sec.Entries[len(sec.Entries)-1].Line + 1
	}
	for _, sec := range d.Syscalls {
		if sec.Arch.String() > arch.String() {
			return sec.Line
		}
	}
	if n := len(d.Syscalls); n > 0 {
		last := d.Syscalls[n-1]
		return last.Entries[len(last.Entries)-1].Line + 1
	}
	if d.groupsLine > 0 {
		return d.groupsLine
	}
	return d.lastLine + 1
}

func commentLines(c string) int {
	if c == "" {
		return 0
	}
	n := 1
	for _, r := range c {
		if r == '\n' {
			n++
		}
	}
	return n
}
