package baseline

import (
	"path"
	"slices"
	"unicode/utf8"
)

// recordPrograms fills doc's programs section from what o ran, as
// FromObservation fills the syscalls list: programs the bases allow are
// left out, the entries of the old file keep their reasons and comments
// (a pattern among them keeps covering what it matches), and without
// merge an entry no program matched goes. An observation without
// programs (an older sysgate's) says nothing about them: the section
// stays as it was, but for what a base now allows.
func recordPrograms(doc, old *Document, base *Profile, o *Observation, merge bool, res *RecordResult) {
	// A base's placeholders stand for what they stood for in the runs.
	base = base.BindRuntimes(o.RuntimePrograms)
	var r programRecord
	held := func(prog string) bool { return o.held(prog) || InRepository(doc.Path, prog) }
	if old != nil {
		doc.HasPrograms = old.HasPrograms
		for _, e := range old.Programs {
			if base.providesProgram(e) {
				// A stack lists a program once.
				res.RemovedPrograms = append(res.RemovedPrograms, entryFinding(e))
				continue
			}
			r.keep(e, false)
		}
	}
	if len(o.Programs) == 0 {
		doc.Programs = r.kept
		return
	}
	for _, prog := range o.ProgramNames() {
		if base.AllowsProgram(prog) {
			continue
		}
		f := programFinding(prog)
		f.Count = o.Programs[prog]
		if name := o.RuntimePrograms.nameOf(prog); name != "" {
			if r.runtime(name, prog, o, doc.Path) {
				f.File = doc.Path
				res.AddedPrograms = append(res.AddedPrograms, f)
			}
			continue
		}
		if i := matchingEntry(r.kept, prog, o.RuntimePrograms); i >= 0 {
			r.used[i] = true
			if held(prog) {
				r.held[i] = true
			} else {
				r.ran[i] = append(r.ran[i], o.ProgramSHA256[prog]...)
			}
			continue
		}
		if !recordable(prog) {
			res.SkippedPrograms = append(res.SkippedPrograms, f)
			continue
		}
		e := ProgramEntry{Path: prog, Written: writtenProgram(doc.Path, prog), File: doc.Path}
		if f.Risk.Risky() {
			e.Reason = UnreviewedReason
		}
		if !held(prog) {
			e.addSHA256(o.ProgramSHA256[prog]...)
		}
		doc.Programs = append(doc.Programs, e)
		f.File = doc.Path
		res.AddedPrograms = append(res.AddedPrograms, f)
	}
	for i, e := range r.kept {
		had := e.SHA256
		switch {
		case r.held[i] && !e.Pattern:
			// The workspace's own program: held at each run's start,
			// not pinned (programs_pin.go).
			e.SHA256 = nil
		case len(r.ran[i]) > 0 || r.held[i]:
			if merge {
				e.SHA256 = slices.Clone(e.SHA256)
			} else {
				e.SHA256 = nil
			}
			e.addSHA256(r.ran[i]...)
		}
		if !slices.Equal(had, e.SHA256) && (r.used[i] || merge) {
			res.PinChanges = append(res.PinChanges, PinChange{File: e.File, Line: e.Line, Program: e.written(),
				Old: had, New: e.SHA256, Held: r.held[i]})
		}
		if r.used[i] || merge {
			doc.Programs = append(doc.Programs, e)
			continue
		}
		res.RemovedPrograms = append(res.RemovedPrograms, entryFinding(e))
	}
	// Programs were observed: the file gates them from now on, unless a
	// base does already and this file adds nothing.
	doc.HasPrograms = doc.HasPrograms || len(doc.Programs) > 0 || !base.GatesPrograms()
	sortProgramFindings(res.AddedPrograms)
	sortProgramFindings(res.RemovedPrograms)
	sortProgramFindings(res.SkippedPrograms)
}

// programRecord is recordPrograms' list of the entries it keeps, with
// whether a program matched each and the contents those programs ran
// with: they pin an entry from now on (with merge, beside the ones it
// had).
type programRecord struct {
	kept []ProgramEntry
	used []bool
	ran  [][]string
	held []bool // a program of the workspace matched it (HeldPrograms)
}

func (r *programRecord) keep(e ProgramEntry, used bool) {
	r.kept, r.used, r.ran, r.held = append(r.kept, e), append(r.used, used), append(r.ran, nil), append(r.held, false)
}

// runtime records prog, which the placeholder {name} stood for in o's
// runs, as that placeholder: a kept placeholder covers it; a kept entry
// naming prog by path becomes the placeholder (keeping its reason and
// comments), a kept pattern matching it stays; else the placeholder is
// added (true). A placeholder pins no content: it names whichever
// interpreter a run's command starts.
func (r *programRecord) runtime(name, prog string, o *Observation, file string) (added bool) {
	for i, e := range r.kept {
		if e.Runtime == name || e.Runtime == "runtime" {
			r.used[i] = true
			return false
		}
	}
	i := matchingEntry(r.kept, prog, o.RuntimePrograms)
	switch {
	case i >= 0 && r.kept[i].Pattern:
		r.used[i] = true
		r.ran[i] = append(r.ran[i], o.ProgramSHA256[prog]...)
		return false
	case i >= 0:
		e := placeholderEntry(name, r.kept[i].File)
		e.Reason, e.Comment, e.LineComment, e.Line, e.Col = r.kept[i].Reason, r.kept[i].Comment, r.kept[i].LineComment, r.kept[i].Line, r.kept[i].Col
		r.kept[i], r.used[i] = e, true
		return false
	}
	r.keep(placeholderEntry(name, file), true)
	return true
}

// recordable reports whether a baseline line can name prog exactly: an
// absolute, clean, UTF-8 path. A program run from memory ("memfd:NAME")
// cannot be named, and stays a violation.
func recordable(prog string) bool {
	return path.IsAbs(prog) && path.Clean(prog) == prog && utf8.ValidString(prog)
}

// providesProgram reports whether the profile already allows what e
// allows: the same pattern or placeholder, or the program e names.
func (p *Profile) providesProgram(e ProgramEntry) bool {
	if p == nil {
		return false
	}
	if !e.Pattern && e.Runtime == "" {
		return p.AllowsProgram(e.Path)
	}
	for _, have := range p.Programs() {
		if have.key() == e.key() {
			return true
		}
	}
	return false
}
