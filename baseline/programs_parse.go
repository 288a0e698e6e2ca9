package baseline

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/baseline/risk"
)

// programForms is how a program entry is written, for messages.
const programForms = `"- /path/to/program", "- {python}", or "- path: PROGRAM" with "reason: WHY" and/or "sha256: HEX" on the next lines`

// programs reads the programs section: the executables the agent may run,
// one per line, relative ones resolved against the file's directory.
func (p *parser) programs(doc *Document, val *yaml.Node) {
	doc.HasPrograms = true
	if val.Kind != yaml.SequenceNode {
		p.add(val, KindSchema, "programs must be a list of executables, one per line (\"programs: []\" for none)")
		return
	}
	dir := programDir(p.path)
	first := map[programKey]ProgramEntry{}
	for _, item := range val.Content {
		e, ok := p.program(item, dir)
		if !ok {
			continue
		}
		if prev, dup := first[e.key()]; dup {
			p.add(item, KindDuplicate, "program %s listed twice (first on line %d%s)", e.describe(), prev.Line, sameAs(prev, e))
			continue
		}
		first[e.key()] = e
		doc.Programs = append(doc.Programs, e)
		doc.programsEnd = max(doc.programsEnd, lastNodeLine(item))
	}
}

// program reads "- path" or "- path: PROGRAM" with "reason: WHY".
func (p *parser) program(item *yaml.Node, dir string) (ProgramEntry, bool) {
	e := ProgramEntry{File: p.path, Line: item.Line, Col: item.Column, Comment: item.HeadComment, LineComment: item.LineComment}
	pathNode := item
	switch item.Kind {
	case yaml.ScalarNode:
	case yaml.MappingNode:
		var ok bool
		if pathNode, ok = p.programMapping(item, &e); !ok {
			return e, false
		}
	default:
		p.add(item, KindSchema, "write one program per line: %s", programForms)
		return e, false
	}
	written, ok := p.scalar(pathNode, "program path")
	if !ok {
		return e, false
	}
	e.Written, e.Line, e.Col = written, pathNode.Line, pathNode.Column
	if strings.HasPrefix(written, "{") {
		return e, p.placeholderProgram(&e, written, pathNode)
	}
	e.Path, e.Pattern = resolveProgram(dir, written)
	if e.Pattern {
		if problem := patternProblem(e.Path); problem != "" {
			p.add(pathNode, KindProgram, "pattern %s: %s", written, problem)
			return e, false
		}
		if e.Reason == "" {
			p.add(pathNode, KindProgram, "pattern %s needs a reason: say why the program's name varies, as \"- path: %s\" with \"reason: WHY\" on the next line",
				written, yamlString(written))
			return e, false
		}
	}
	r, l := risk.OfProgram(e.Path)
	switch {
	case r.Risky() && e.Reason == "":
		p.add(pathNode, KindRisk, "%s is risky (%s): %s; give a reason, as \"- path: %s\" with \"reason: why the agent runs it\" on the next line",
			e.describe(), r.Label(l), r.Reason(), yamlString(written))
		return e, false
	case (r.Risky() || e.Pattern) && strings.HasPrefix(e.Reason, "unreviewed"):
		p.warn(pathNode, KindUnreviewed, "%s needs a reviewed reason and its reason is still the record-mode placeholder: review it", e.describe())
	}
	return e, true
}

// programMapping reads the keys of "- path: PROGRAM" / "reason: WHY" into
// e and returns the path's node.
func (p *parser) programMapping(item *yaml.Node, e *ProgramEntry) (*yaml.Node, bool) {
	var pathNode *yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		if seen[k.Value] {
			p.add(k, KindDuplicate, "key %q given twice in a program entry", k.Value)
			return nil, false
		}
		seen[k.Value] = true
		switch k.Value {
		case "path":
			pathNode = v
		case "reason":
			reason, ok := p.scalar(v, "program reason")
			if !ok {
				return nil, false
			}
			e.Reason = reason
		case "sha256":
			if !p.programSHA256(v, e) {
				return nil, false
			}
		default:
			if _, ph := ProgramPlaceholders[k.Value]; ph && item.Style&yaml.FlowStyle != 0 && v.Tag == "!!null" {
				p.add(item, KindSchema, "YAML reads {%s} as a mapping: quote the placeholder, as - \"{%s}\"", k.Value, k.Value)
				return nil, false
			}
			p.add(k, KindSchema, "unknown key %q in a program entry (known: path, reason, sha256); write %s", k.Value, programForms)
			return nil, false
		}
		p.keyComments(i, k, v, &e.Comment, &e.LineComment)
	}
	if pathNode == nil {
		p.add(item, KindSchema, "program entry without a path: write %s", programForms)
		return nil, false
	}
	return pathNode, true
}

// patternProblem says what is wrong with a resolved pattern, "" when
// nothing is.
func patternProblem(pattern string) string {
	for _, elem := range strings.Split(pattern, "/") {
		if strings.Contains(elem, "**") {
			return `"**" matches like "*", within one path element: write one "*" per directory level`
		}
		if !validPattern(elem) {
			return `malformed (path.Match syntax: "*", "?", "[a-z]", "\" escapes)`
		}
	}
	return ""
}

// describe names the entry in messages: as written, with the absolute
// path it resolves to when that differs.
func (e ProgramEntry) describe() string {
	if e.Written == "" || e.Written == e.Path {
		return e.written()
	}
	return e.Written + " (" + e.Path + ")"
}

// sameAs notes, for a duplicate written differently, that both name one
// program.
func sameAs(first, dup ProgramEntry) string {
	if first.Written == dup.Written {
		return ""
	}
	return ", as " + first.Written
}

// lastNodeLine is the last line n's content starts on.
func lastNodeLine(n *yaml.Node) int {
	line := n.Line
	for _, c := range n.Content {
		line = max(line, lastNodeLine(c))
	}
	return line
}
