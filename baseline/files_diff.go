package baseline

import "github.com/sysgate/sysgate/baseline/risk"

// FileFinding is one file access in a diff: an observed access the
// profile does not allow, or a files entry no access matched.
type FileFinding struct {
	// Path is the observed path, or for an unused entry its glob.
	Path  string `json:"path"`
	Op    FileOp `json:"op"`
	Count uint64 `json:"count,omitempty"`
	// Sensitive and Level: the sensitive-path row the access touches
	// ("ssh key", high); "" when none.
	Sensitive string     `json:"sensitive,omitempty"`
	Level     risk.Level `json:"level,omitempty"`
	// Explain says what the baseline has instead: "not in the baseline;
	// it has {workspace}/**: read".
	Explain string `json:"explain,omitempty"`
	// Covers, for an entry record added: the sensitive paths its glob
	// covers ("covers sensitive paths: /**/.env (env file, high), ..."),
	// which the gate lets it reach only with a reason a person writes.
	Covers string `json:"covers,omitempty"`
	// File and Line: for a new access, the file its entry belongs in; for
	// an unused one, the entry.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// diffFiles compares the observed accesses with the files entries, as
// observations keep paths: symbolically.
func diffFiles(p *Profile, o *Observation) (added, unused []FileFinding) {
	seen := o.FileList()
	if p.FilesGated() {
		m := p.FileMatcher(symbolic)
		target := p.agentDoc()
		for _, s := range seen {
			if m.Allows(s.Path, s.Op) {
				continue
			}
			f := FileFinding{Path: s.Path, Op: s.Op, Count: s.Count, Explain: m.Explain(s.Path, s.Op)}
			if row, ok := SensitivePath(FileContext{}, s.Path, s.Op); ok {
				f.Sensitive, f.Level = row.Label, row.Level
			}
			if target != nil {
				f.File, f.Line = target.Path, target.fileInsertLine(s.Op)
			}
			added = append(added, f)
		}
	}
	if !o.ObservesFiles() {
		return added, nil
	}
	for _, e := range p.FileEntries() {
		if !p.direct[e.File] || entryUsed(e, seen) {
			continue
		}
		unused = append(unused, FileFinding{Path: e.Pattern, Op: e.Op, File: e.File, Line: e.Line})
	}
	return added, unused
}

func entryUsed(e FileEntry, seen []ObservedFile) bool {
	m := newFileMatcher([]FileEntry{e}, symbolic)
	for _, s := range seen {
		if s.Op == e.Op && m.Allows(s.Path, s.Op) {
			return true
		}
	}
	return false
}
