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
	var kept []ProgramEntry
	if old != nil {
		doc.HasPrograms = old.HasPrograms
		for _, e := range old.Programs {
			if base.providesProgram(e) {
				// A stack lists a program once.
				res.RemovedPrograms = append(res.RemovedPrograms, entryFinding(e))
				continue
			}
			kept = append(kept, e)
		}
	}
	if len(o.Programs) == 0 {
		doc.Programs = kept
		return
	}
	used := make([]bool, len(kept))
	// The contents each kept entry's programs ran with: they pin it from
	// now on (with merge, beside the ones it had).
	ran := make([][]string, len(kept))
	for _, prog := range o.ProgramNames() {
		if base.AllowsProgram(prog) {
			continue
		}
		if i := matchingEntry(kept, prog); i >= 0 {
			used[i] = true
			ran[i] = append(ran[i], o.ProgramSHA256[prog]...)
			continue
		}
		f := programFinding(prog)
		f.Count = o.Programs[prog]
		if !recordable(prog) {
			res.SkippedPrograms = append(res.SkippedPrograms, f)
			continue
		}
		e := ProgramEntry{Path: prog, Written: writtenProgram(doc.Path, prog), File: doc.Path}
		if f.Risk.Risky() {
			e.Reason = UnreviewedReason
		}
		e.addSHA256(o.ProgramSHA256[prog]...)
		doc.Programs = append(doc.Programs, e)
		f.File = doc.Path
		res.AddedPrograms = append(res.AddedPrograms, f)
	}
	for i, e := range kept {
		if len(ran[i]) > 0 {
			if merge {
				e.SHA256 = slices.Clone(e.SHA256)
			} else {
				e.SHA256 = nil
			}
			e.addSHA256(ran[i]...)
		}
		if used[i] || merge {
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

// recordable reports whether a baseline line can name prog exactly: an
// absolute, clean, UTF-8 path. A program run from memory ("memfd:NAME")
// cannot be named, and stays a violation.
func recordable(prog string) bool {
	return path.IsAbs(prog) && path.Clean(prog) == prog && utf8.ValidString(prog)
}

// providesProgram reports whether the profile already allows what e
// allows: the same pattern, or the program e names.
func (p *Profile) providesProgram(e ProgramEntry) bool {
	if p == nil {
		return false
	}
	if !e.Pattern {
		return p.AllowsProgram(e.Path)
	}
	for _, have := range p.Programs() {
		if have.key() == e.key() {
			return true
		}
	}
	return false
}
