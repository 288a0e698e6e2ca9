package baseline

import "github.com/sysgate/sysgate/baseline/risk"

// recordFiles fills doc's files section from what o touched, as
// recordPrograms fills the programs section: accesses the bases allow
// are left out, the entries of the old file keep their reasons and
// comments (a glob among them keeps covering what it matches), and
// without merge an entry no access matched goes. An observation without
// files (an older sysgate's, or --no-files) says nothing about them: the
// section stays as it was, but for what a base now has.
func recordFiles(doc, old *Document, base *Profile, o *Observation, merge bool, res *RecordResult) {
	var kept []FileEntry
	if old != nil {
		doc.HasFiles = old.HasFiles
		have := map[string]bool{}
		for _, e := range base.FileEntries() {
			have[e.key()] = true
		}
		for _, e := range old.Files {
			if have[e.key()] {
				res.RemovedFiles = append(res.RemovedFiles, FileFinding{Path: e.Pattern, Op: e.Op, File: e.File, Line: e.Line})
				continue
			}
			kept = append(kept, e)
		}
	}
	if !o.ObservesFiles() {
		doc.Files = kept
		return
	}
	baseM, keptM := base.FileMatcher(symbolic), newFileMatcher(kept, symbolic)
	repo := workTree(programDir(doc.Path))
	used := make([]bool, len(kept))
	var fresh []ObservedFile
	for _, s := range o.FileList() {
		if baseM.Allows(s.Path, s.Op) {
			continue
		}
		if i := keptM.index(s.Path, s.Op); i >= 0 {
			used[i] = true
			continue
		}
		// A path in the baseline's own checkout is written from {repo},
		// so that a clone elsewhere reads the same file.
		if repo != "" && within(repo, s.Path) {
			s.Path = phRepo + s.Path[len(repo):]
		}
		fresh = append(fresh, s)
	}
	doc.Files = nil
	for i, e := range kept {
		if used[i] || merge {
			doc.Files = append(doc.Files, e)
			continue
		}
		res.RemovedFiles = append(res.RemovedFiles, FileFinding{Path: e.Pattern, Op: e.Op, File: e.File, Line: e.Line})
	}
	have := map[string]bool{}
	for _, e := range doc.Files {
		have[e.key()] = true
	}
	// What the run made under {tmp} is judged from everything it did:
	// its mkdir may be one a base already allows.
	for _, e := range generaliseFiles(FileContext{}, fresh, madeUnder(FileContext{}, o.FileList())) {
		if have[e.key()] {
			continue
		}
		e.File = doc.Path
		doc.Files = append(doc.Files, e)
		f := FileFinding{Path: e.Pattern, Op: e.Op, File: doc.Path}
		if hits := sensitiveOverlap(e); len(hits) > 0 {
			if hits[0].names {
				f.Sensitive, f.Level = hits[0].entry.Label, hits[0].entry.Level
			} else {
				f.Covers = describeOverlap(hits)
			}
		}
		res.AddedFiles = append(res.AddedFiles, f)
	}
	// Files were observed: the file gates them from now on, unless a base
	// does already and this file adds nothing.
	doc.HasFiles = doc.HasFiles || len(doc.Files) > 0 || !base.FilesGated()
}

// widenFiles: a base that gates no files allows every file, so only a
// base with a files section can be widened. A new entry widens unless it
// is a literal path a base glob already allows; a changed glob is a new
// entry: telling whether one glob covers another is not worth a wrong
// "no".
func widenFiles(base, cur *Profile) []Widened {
	switch {
	case !cur.FilesGated() && base.FilesGated():
		file := firstDocWith(base, func(d *Document) bool { return d.HasFiles })
		return []Widened{{Kind: WidenUngated, Reason: "the files section is gone: every file is allowed", File: file}}
	case !cur.FilesGated():
		return nil
	}
	// A base without the section allowed no entries of it: a stack that
	// layers the file over one with the section gates what it adds.
	have := map[string]bool{}
	for _, e := range base.FileEntries() {
		have[e.key()] = true
	}
	bm := base.FileMatcher(symbolic)
	var out []Widened
	for _, e := range cur.FileEntries() {
		if have[e.key()] || (compileGlob(e.Pattern).literal() && bm.Allows(e.Pattern, e.Op)) {
			continue
		}
		w := Widened{Kind: WidenFile, Path: e.String(), Reason: e.Reason, File: e.File, Line: e.Line}
		if hits := sensitiveOverlap(e); len(hits) > 0 {
			w.Risk, w.Level, w.RiskReason = risk.SensitivePath, risk.Medium, describeOverlap(hits)
			for _, h := range hits {
				if h.entry.Level == risk.High {
					w.Level = risk.High
				}
			}
		}
		out = append(out, w)
	}
	return out
}

// firstDocWith is the path of the profile's first file that has, "" when
// none has.
func firstDocWith(p *Profile, has func(*Document) bool) string {
	for _, d := range p.Docs {
		if has(d) {
			return d.Path
		}
	}
	return ""
}

// lineFiles gives each added files entry its line in the file as written.
func (res *RecordResult) lineFiles(written *Document) {
	for i := range res.AddedFiles {
		for _, e := range written.Files {
			if e.Pattern == res.AddedFiles[i].Path && e.Op == res.AddedFiles[i].Op {
				res.AddedFiles[i].Line = e.Line
			}
		}
	}
}
