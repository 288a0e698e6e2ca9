package baseline

// GatesPrograms reports whether some file of the profile has a programs
// section: only then is a program outside it a violation.
func (p *Profile) GatesPrograms() bool {
	if p == nil {
		return false
	}
	for _, d := range p.Docs {
		if d.HasPrograms {
			return true
		}
	}
	return false
}

// LookupProgram returns the entry that allows the program at prog. As
// for syscalls the first file of the stack wins, and as a class before its
// syscall's argument-blind entry, an exact entry before any pattern.
func (p *Profile) LookupProgram(prog string) (ProgramEntry, bool) {
	if p == nil {
		return ProgramEntry{}, false
	}
	var all []ProgramEntry
	for _, d := range p.Docs {
		all = append(all, d.Programs...)
	}
	if i := matchingEntry(all, prog, p.runtimes); i >= 0 {
		return all[i], true
	}
	return ProgramEntry{}, false
}

// matchingEntry is the index of the first entry of entries that allows
// prog, with placeholders bound to b, an exact one (or a placeholder)
// before any pattern; -1 when none does.
func matchingEntry(entries []ProgramEntry, prog string, b RuntimePrograms) int {
	for _, patterns := range []bool{false, true} {
		for i, e := range entries {
			if e.Pattern == patterns && e.matchesBound(prog, b) {
				return i
			}
		}
	}
	return -1
}

// AllowsProgram reports whether the profile allows the program at prog.
func (p *Profile) AllowsProgram(prog string) bool {
	_, ok := p.LookupProgram(prog)
	return ok
}

// Programs returns the program entries of every file, bases first, each
// path once (the first file wins).
func (p *Profile) Programs() []ProgramEntry {
	if p == nil {
		return nil
	}
	var out []ProgramEntry
	seen := map[programKey]bool{}
	for _, d := range p.Docs {
		for _, e := range d.Programs {
			if !seen[e.key()] {
				seen[e.key()] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// ProgramInsert is where a new program line goes: the agent's own file
// and the line the entry takes there, as record would write it: its
// sorted place in the programs list, or where a new programs section
// would start ("" without a file).
func (p *Profile) ProgramInsert(prog string) (file string, line int) {
	d := p.agentDoc()
	if d == nil {
		return "", 0
	}
	return d.Path, d.programInsertLine(writtenProgram(d.Path, prog))
}

// ProgramLine is prog as a line of the file ProgramInsert names would
// hold it, as record writes it: relative to that file when both lie in
// one git work tree (a checkout's own scripts), else absolute. A fix
// hint offers it, so it never names the runner's checkout.
func (p *Profile) ProgramLine(prog string) string {
	d := p.agentDoc()
	if d == nil {
		return escapeMeta(prog)
	}
	return writtenProgram(d.Path, prog)
}

func (d *Document) programInsertLine(written string) int {
	if len(d.Programs) > 0 {
		for _, e := range d.Programs {
			if e.written() > written {
				return e.Line - commentLines(e.Comment)
			}
		}
		return d.programsEnd + 1
	}
	if d.programsLine > 0 {
		return d.programsLine + 1 // "programs: []" opens into a list
	}
	return d.newSectionLine()
}

// newSectionLine is where a new section goes: after extends, before the
// first of syscalls, unmonitored and groups.
func (d *Document) newSectionLine() int {
	next := 0
	for _, l := range []int{d.syscallsLine, d.unmonitoredLine, d.groupsLine} {
		if l > 0 && (next == 0 || l < next) {
			next = l
		}
	}
	if next > 0 {
		return next
	}
	return d.lastLine + 1
}

// ProgramBlindWarning is the warning for a stack none of whose files has
// a programs section, so that any program may run: validate prints it
// (a failure with --strict), on the agent's own file. nil when the profile
// gates programs.
func (p *Profile) ProgramBlindWarning() *Error {
	d := p.agentDoc()
	if d == nil || p.GatesPrograms() {
		return nil
	}
	return &Error{File: d.Path, Kind: KindProgramBlind, Warning: true,
		Message: "programs are not gated: no file of this stack has a programs section; record with --merge to add one"}
}
