package baseline

import "github.com/sysgate/sysgate/baseline/risk"
import "sort"

// ProgramFinding is one program in a diff of a profile and an observation.
type ProgramFinding struct {
	Program string     `json:"program"`
	Count   uint64     `json:"count,omitempty"`
	Risk    risk.Class `json:"risk,omitempty"`
	Level   risk.Level `json:"level,omitempty"`
	// File and Line: for a new program, where its line would go; for an
	// unused one, the entry.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// RiskLabel is the finding's risk as reports print it: "shell, high";
// "" when not risky.
func (f ProgramFinding) RiskLabel() string { return f.Risk.Label(f.Level) }

func programFinding(prog string) ProgramFinding {
	r, l := risk.OfProgram(prog)
	return ProgramFinding{Program: prog, Risk: r, Level: l}
}

func entryFinding(e ProgramEntry) ProgramFinding {
	f := programFinding(e.Path)
	f.File, f.Line = e.File, e.Line
	return f
}

func sortProgramFindings(fs []ProgramFinding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Program != fs[j].Program {
			return fs[i].Program < fs[j].Program
		}
		return fs[i].File < fs[j].File
	})
}

// AddProgram counts n runs of the program at p.
func (o *Observation) AddProgram(p string, n uint64) {
	if o.Programs == nil {
		o.Programs = map[string]uint64{}
	}
	o.Programs[p] += n
}

// ProgramNames returns the observed programs, sorted.
func (o *Observation) ProgramNames() []string {
	if o == nil {
		return nil
	}
	names := make([]string, 0, len(o.Programs))
	for p := range o.Programs {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}

// usesProgram reports whether an observed program matches e, with
// placeholders bound to b.
func (o *Observation) usesProgram(e ProgramEntry, b RuntimePrograms) bool {
	if o == nil {
		return false
	}
	if !e.Pattern && e.Runtime == "" {
		return o.Programs[e.Path] > 0
	}
	for p, n := range o.Programs {
		if n > 0 && e.matchesBound(p, b) {
			return true
		}
	}
	return false
}

// diffPrograms is Diff for programs. Every run execs at least the agent,
// so an observation without programs comes from a sysgate or backend
// that does not see them: it leaves no entry unused. A profile the run
// did not bind takes the placeholders' values the observation's runs had.
func diffPrograms(p *Profile, o *Observation) (added, unused []ProgramFinding) {
	if !p.GatesPrograms() {
		return nil, nil
	}
	if p.runtimes == nil && o != nil {
		p = p.BindRuntimes(o.RuntimePrograms)
	}
	for _, prog := range o.ProgramNames() {
		if p.AllowsProgram(prog) {
			continue
		}
		f := programFinding(prog)
		f.Count = o.Programs[prog]
		f.File, f.Line = p.ProgramInsert(prog)
		added = append(added, f)
	}
	if o == nil || len(o.Programs) == 0 {
		return added, nil
	}
	for _, d := range p.Docs {
		if !p.direct[d.Path] {
			continue
		}
		for _, e := range d.Programs {
			if !o.usesProgram(e, p.runtimes) {
				unused = append(unused, entryFinding(e))
			}
		}
	}
	sortProgramFindings(unused)
	return added, unused
}
