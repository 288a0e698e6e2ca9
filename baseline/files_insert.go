package baseline

// FileInsert is where a new entry allowing op goes, as file and line: in
// the agent's own file (the one Diff names, never a runtime base it
// extends), on the line below op's key in its files section, else below
// "files:", else where a new section goes. ("", 0) without such a file.
func (p *Profile) FileInsert(op FileOp) (file string, line int) {
	d := p.agentDoc()
	if d == nil {
		return "", 0
	}
	return d.Path, d.fileInsertLine(op)
}

func (d *Document) fileInsertLine(op FileOp) int {
	if l := d.fileOpLines[op]; l > 0 {
		if d.fileOpFlow[op] {
			return l // "read: []" is rewritten in place
		}
		return l + 1
	}
	if d.filesLine > 0 {
		if d.filesFlow {
			return d.filesLine
		}
		return d.filesLine + 1
	}
	return d.newSectionLine()
}
