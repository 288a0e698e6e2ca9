package baseline

import "sort"

// ProgramFinding is one program in a diff of a profile and an observation.
type ProgramFinding struct {
	Program string    `json:"program"`
	Count   uint64    `json:"count,omitempty"`
	Risk    RiskClass `json:"risk,omitempty"`
	Level   RiskLevel `json:"level,omitempty"`
	// File and Line: for a new program, where its line would go; for an
	// unused one, the entry.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
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
