package baseline

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// FileEntry is one line of a files section: a glob (as written, with its
// placeholder) and the access it allows.
type FileEntry struct {
	Pattern     string
	Op          FileOp
	Reason      string
	Comment     string
	LineComment string
	File        string
	Line, Col   int
	// repo is the git top-level of File's directory, for "{repo}".
	repo string
}

// key tells entries apart within a stack.
func (e FileEntry) key() string { return e.Op.String() + " " + e.Pattern }

// String is the entry as reports name it: "{workspace}/**: read".
func (e FileEntry) String() string { return e.Pattern + ": " + e.Op.String() }

// fileForms is how a files entry is written, for messages.
const fileForms = `"- /absolute/glob", "- {placeholder}/glob", or "- path: GLOB" with "reason: WHY" on the next line`

// files reads the files section: per access, the globs the agent may
// touch.
func (p *parser) files(doc *Document, val *yaml.Node) {
	doc.HasFiles = true
	if val.Kind != yaml.MappingNode {
		p.add(val, KindSchema, "files must map an access (read, write, exec, delete) to a list of globs (\"files: {}\" for none)")
		return
	}
	seenOp := map[FileOp]bool{}
	first := map[string]int{}
	repo := ""
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, list := val.Content[i], val.Content[i+1]
		p.dropComments(k)
		op, ok := ParseFileOp(k.Value)
		if !ok {
			p.unknownChoice(k, "access", "files", []string{"read", "write", "exec", "delete"})
			continue
		}
		if seenOp[op] {
			p.add(k, KindDuplicate, "access %s given twice in files", op)
			continue
		}
		seenOp[op] = true
		if doc.fileOpLines == nil {
			doc.fileOpLines, doc.fileOpFlow = map[FileOp]int{}, map[FileOp]bool{}
		}
		doc.fileOpLines[op], doc.fileOpFlow[op] = k.Line, list.Style&yaml.FlowStyle != 0
		if list.Kind != yaml.SequenceNode {
			p.add(list, KindSchema, "files %s must be a list of globs, one per line", op)
			continue
		}
		for _, item := range list.Content {
			e, ok := p.fileEntry(item, op)
			if !ok {
				continue
			}
			if strings.HasPrefix(e.Pattern, phRepo) {
				if repo == "" {
					repo = workTree(programDir(p.path))
				}
				if repo == "" {
					p.add(item, KindFiles, "%s: %s is the git top-level of the baseline's directory, and %s is in no git work tree", e.Pattern, phRepo, p.path)
					continue
				}
				e.repo = repo
			}
			if line, dup := first[e.key()]; dup {
				p.add(item, KindDuplicate, "%s listed twice (first on line %d)", e, line)
				continue
			}
			first[e.key()] = e.Line
			p.sensitiveEntry(item, e)
			doc.Files = append(doc.Files, e)
		}
	}
}

// fileEntry reads "- GLOB" or "- path: GLOB" with "reason: WHY".
func (p *parser) fileEntry(item *yaml.Node, op FileOp) (FileEntry, bool) {
	e := FileEntry{Op: op, File: p.path, Line: item.Line, Col: item.Column, Comment: item.HeadComment, LineComment: item.LineComment}
	pathNode := item
	switch item.Kind {
	case yaml.ScalarNode:
	case yaml.MappingNode:
		pathNode = nil
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			switch k.Value {
			case "path":
				if pathNode != nil {
					p.add(k, KindDuplicate, "key \"path\" given twice in a files entry")
					return e, false
				}
				pathNode = v
			case "reason":
				if e.Reason != "" {
					p.add(k, KindDuplicate, "key \"reason\" given twice in a files entry")
					return e, false
				}
				reason, ok := p.scalar(v, "files reason")
				if !ok {
					return e, false
				}
				e.Reason = reason
			default:
				p.add(k, KindSchema, "unknown key %q in a files entry (known: path, reason); write %s", k.Value, fileForms)
				return e, false
			}
			p.keyComments(i, k, v, &e.Comment, &e.LineComment)
		}
		if pathNode == nil {
			p.add(item, KindSchema, "files entry without a path: write %s", fileForms)
			return e, false
		}
	default:
		p.add(item, KindSchema, "write one glob per line: %s", fileForms)
		return e, false
	}
	written, ok := p.scalar(pathNode, "files glob")
	if !ok {
		return e, false
	}
	e.Pattern, e.Line, e.Col = written, pathNode.Line, pathNode.Column
	if problem := globProblem(written); problem != "" {
		p.add(pathNode, KindFiles, "%s: %s", written, problem)
		return e, false
	}
	return e, true
}

// globProblem says what is wrong with a written files glob, "" when
// nothing is: it is absolute or starts with a known placeholder, is
// clean (no ".", "..", "//" or trailing "/"), and "**" stands alone.
func globProblem(g string) string {
	if !utf8.ValidString(g) {
		return "not valid UTF-8"
	}
	for _, r := range g {
		if unicode.IsControl(r) {
			return "control characters are not allowed in a glob"
		}
	}
	rest := g
	if strings.HasPrefix(g, "{") {
		end := strings.IndexByte(g, '}')
		if end < 0 {
			return "unclosed placeholder: write {workspace}, {home}, {tmp}, {repo} or {runtime}"
		}
		name := g[:end+1]
		if !isPlaceholder(name) {
			msg := fmt.Sprintf("unknown placeholder %s (known: %s)", name, strings.Join(placeholders, ", "))
			if hint := scmp.ClosestOf(name, placeholders); hint != "" {
				msg += fmt.Sprintf(", did you mean %s?", hint)
			}
			return msg
		}
		rest = g[end+1:]
		if rest == "" {
			return ""
		}
		if !strings.HasPrefix(rest, "/") {
			return fmt.Sprintf("a placeholder is a whole directory: write %s/...", name)
		}
	} else if !strings.HasPrefix(g, "/") {
		return "relative path: write an absolute path, or start with {workspace}, {home}, {tmp}, {repo} or {runtime}"
	}
	if strings.ContainsAny(rest, "{}") {
		return "a placeholder may only start an entry"
	}
	if rest == "/" {
		return ""
	}
	for _, elem := range strings.Split(rest[1:], "/") {
		switch {
		case elem == "":
			return `empty path element ("//" or a trailing "/")`
		case elem == "." || elem == "..":
			return fmt.Sprintf("%q: write the path without . and .. elements", elem)
		case strings.Contains(elem, "**") && elem != "**":
			return fmt.Sprintf("element %q: \"**\" must be a whole path element (\"dir/**\"); \"*\" matches within one", elem)
		}
	}
	return ""
}

func isPlaceholder(name string) bool {
	for _, ph := range placeholders {
		if ph == name {
			return true
		}
	}
	return false
}

// sensitiveEntry reports an entry that names a sensitive path
// (sensitive.go) without a reason, as a risky syscall without one is.
// A glob that only covers one is advisory: the gate lets a glob reach a
// sensitive path only with a reason a person wrote ({workspace}/**:
// write allows the agent's workspace writes, not .git/hooks), so the
// glob widens nothing sensitive until someone says why it should.
func (p *parser) sensitiveEntry(n *yaml.Node, e FileEntry) {
	hits := sensitiveOverlap(e)
	if len(hits) == 0 {
		return
	}
	names := false
	for _, h := range hits {
		names = names || h.names
	}
	if !names {
		if e.Reason == "" || strings.HasPrefix(e.Reason, "unreviewed") {
			p.warn(n, KindSensitive, "%s %s, which it reaches only with a reason a person wrote", e, describeOverlap(hits))
			p.errs[len(p.errs)-1].Advisory = true
		}
		return
	}
	switch {
	case e.Reason == "":
		p.add(n, KindSensitive, "%s %s; give a reason: write the entry as \"- path: GLOB\" with \"reason: why the agent needs it\" on the next line",
			e, describeOverlap(hits))
	case strings.HasPrefix(e.Reason, "unreviewed"):
		p.warn(n, KindUnreviewed, "%s %s and its reason is still the record-mode placeholder: review it", e, describeOverlap(hits))
	}
}

// describeOverlap names what an entry touches: "names a sensitive path
// (ssh key, high)" or "covers sensitive paths: {home}/.ssh/** (ssh key,
// high), ... and 3 more".
func describeOverlap(hits []sensitiveHit) string {
	if hits[0].names {
		// A literal path: the first row it matches decides, as for an
		// access (SensitivePath).
		return fmt.Sprintf("names a sensitive path (%s, %s)", hits[0].entry.Label, hits[0].entry.Level)
	}
	const shown = 3
	// High rows first: they are the ones a reviewer must see; one row of
	// each kind (ssh key, env file), since a glob over a checkout covers
	// many rows of one.
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].entry.Level == risk.High && hits[j].entry.Level != risk.High })
	kinds := map[string]bool{}
	hits = slices.DeleteFunc(slices.Clone(hits), func(h sensitiveHit) bool {
		seen := kinds[h.entry.Label]
		kinds[h.entry.Label] = true
		return seen
	})
	var parts []string
	for i, h := range hits {
		if i == shown {
			return "covers sensitive paths: " + strings.Join(parts, ", ") + fmt.Sprintf(" and %d more", len(hits)-shown)
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", h.entry.Pattern, h.entry.Label, h.entry.Level))
	}
	return "covers sensitive paths: " + strings.Join(parts, ", ")
}

// keyComments keeps the comments around the i-th key of an entry's
// mapping: those above the first key go above the entry, those beside any
// key or value beside it; one above a later key has no place in the
// canonical layout.
func (p *parser) keyComments(i int, k, v *yaml.Node, comment, lineComment *string) {
	if i == 0 {
		*comment = joinComments(*comment, k.HeadComment)
	} else if k.HeadComment != "" {
		p.warn(k, KindFormat, "comment here is not kept by `sysgate baseline fmt`; move it above the entry")
	}
	*lineComment = joinComments(*lineComment, joinComments(k.LineComment, v.LineComment))
}

// unknownChoice reports key k of section, which names none of known
// (a what: an access, a call), with the closest one when there is one.
func (p *parser) unknownChoice(k *yaml.Node, what, section string, known []string) {
	msg := fmt.Sprintf("unknown %s %q in %s (known: %s)", what, k.Value, section, strings.Join(known, ", "))
	if hint := scmp.ClosestOf(k.Value, known); hint != "" {
		msg += fmt.Sprintf(", did you mean %q?", hint)
	}
	p.add(k, KindSchema, "%s", msg)
}
