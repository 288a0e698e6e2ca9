package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// namePattern restricts agent and group names to what reads well in
// reports and needs no quoting.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// parser collects every problem of one file instead of stopping at the
// first, so a user fixes a file in one pass.
type parser struct {
	path string
	errs ErrorList
	// syntaxName names the input's syntax in syntax errors: "JSON" for a
	// file that starts with "{" (JSON is YAML, and parses as such), else
	// "YAML".
	syntaxName string
	// inUnmonitored: entries being read belong to the unmonitored section.
	inUnmonitored bool
}

func (p *parser) add(n *yaml.Node, kind, format string, args ...any) {
	e := &Error{File: p.path, Message: fmt.Sprintf(format, args...), Kind: kind}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

func (p *parser) warn(n *yaml.Node, kind, format string, args ...any) {
	p.add(n, kind, format, args...)
	p.errs[len(p.errs)-1].Warning = true
}

// ParseDocument parses and validates one baseline file's content. path is
// used in messages, and its directory is where relative programs start
// (programDir: the only thing read from the disk). The error is an ErrorList (matching ErrInvalid)
// holding every problem found, warnings included; without errors the
// warnings are in Document.Warnings.
func ParseDocument(path string, data []byte) (*Document, error) {
	doc, errs := parseDocument(path, data)
	if hasErrors(errs) {
		return nil, errs.sorted()
	}
	doc.Warnings = errs.sorted()
	return doc, nil
}

func hasErrors(errs ErrorList) bool {
	for _, e := range errs {
		if !e.Warning {
			return true
		}
	}
	return false
}

// parseDocument returns the document (nil when it cannot be read at all;
// only its valid part when there are errors) and every error and warning
// found.
func parseDocument(path string, data []byte) (*Document, ErrorList) {
	p := &parser{path: path}
	root, ok := p.decode(data)
	if !ok {
		return nil, p.errs
	}
	doc := &Document{Path: path, lastLine: bytes.Count(data, []byte("\n"))}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		doc.lastLine++
	}
	doc.Header = root.HeadComment
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		p.add(top, KindSchema, "a baseline is a mapping with version, agent, extends, programs, syscalls and groups")
		return nil, p.errs
	}
	p.topLevel(doc, top)
	p.crossDuplicates(doc)
	if hasErrors(p.errs) {
		// The valid part still goes back, so the loader can follow its
		// extends and report every problem of the stack in one pass.
		doc.normalize()
		return doc, p.errs
	}
	if len(doc.Syscalls) == 0 && len(doc.Extends) == 0 && len(doc.Groups) == 0 && len(doc.Unmonitored) == 0 && !doc.HasPrograms && !doc.HasFiles && !doc.HasNetwork {
		p.add(nil, KindEmpty, "%s", emptyBaselineFix)
		return nil, p.errs
	}
	doc.normalize()
	return doc, p.errs
}

// emptyBaselineFix is the error for a file with nothing to allow (a
// first baseline holding only version and agent), with the two ways to
// fill it.
const emptyBaselineFix = "empty baseline: no syscalls, programs, extends or groups; a first baseline extends its runtime's layer: " +
	"record that on this machine (sysgate record --runtime node -o baselines/runtimes/node.yaml; --runtime python for CPython), " +
	"write its path, relative to this file, under extends, then record the agent " +
	"(sysgate record --extends baselines/runtimes/node.yaml -o FILE -- CMD, or a spec run with SYSGATE_MODE=record)"

// decode turns bytes into the document node, reporting syntax problems,
// several documents and aliases.
func (p *parser) decode(data []byte) (*yaml.Node, bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		p.add(nil, KindEmpty, "empty baseline file")
		return nil, false
	}
	p.syntaxName = "YAML"
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		p.syntaxName = "JSON"
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			p.add(nil, KindEmpty, "empty baseline file: only comments")
			return nil, false
		}
		p.syntax(err)
		return nil, false
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		p.add(&second, KindSyntax, "a baseline file holds one document")
		return nil, false
	} else if !errors.Is(err, io.EOF) {
		p.syntax(err)
		return nil, false
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		p.add(nil, KindEmpty, "empty baseline file")
		return nil, false
	}
	if n := firstAlias(&root); n != nil {
		p.add(n, KindSyntax, "YAML anchors and aliases are not allowed in a baseline: write each entry out")
		return nil, false
	}
	p.footComments(&root)
	return &root, true
}

// syntax reports an error yaml.v3 returned before any node existed.
//
// yaml.v3 (go.yaml.in/yaml/v3 v3.0.5; v3.0.6 is the same here) has no
// typed position for a syntax error: its scanner and parser fail through
// fmt.Errorf("yaml: line %d: %s") and keep the mark (line and column) in
// an unexported struct; *yaml.TypeError only arises when decoding into Go
// values, never into a yaml.Node. So this is the one place that reads
// yaml's error text (syntaxPosition), and a syntax error has no column;
// every other finding takes its line and column from a node.
// go.yaml.in/yaml/v4 v4.0.0 returns a *yaml.LoadError with Stage and
// Mark{Line, Column}: when the baseline moves to v4 this fallback goes.
func (p *parser) syntax(err error) {
	line, problem := syntaxPosition(err.Error())
	p.errs = append(p.errs, &Error{File: p.path, Line: line, Message: p.syntaxName + ": " + problem, Kind: KindSyntax})
}

// yamlSyntaxError is the text of yaml.v3's syntax errors: "yaml: line N:
// problem", or "yaml: problem" when yaml has no line to give.
// TestYAMLSyntaxErrorText fails if yaml changes it.
var yamlSyntaxError = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// syntaxPosition returns the 1-based line (0 when unknown) and the
// problem of a yaml.v3 syntax error's text.
func syntaxPosition(msg string) (int, string) {
	m := yamlSyntaxError.FindStringSubmatch(msg)
	if m == nil {
		return 0, msg
	}
	line, _ := strconv.Atoi(m[1])
	// yaml.v3 reports a parser error (unlike a scanner error) with the
	// 0-based line of the construct it was reading, and no line at all on
	// line 0.
	if parserProblems[m[2]] {
		line++
	}
	return line, m[2]
}

// parserProblems are the messages of yaml.v3's parser (parserc.go), as
// opposed to its scanner.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found undefined tag handle":             true,
	"found incompatible YAML document":       true,
}

// firstAlias returns the first node (in document order) that is an alias
// or carries an anchor, or nil.
func firstAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return n
	}
	for _, c := range n.Content {
		if a := firstAlias(c); a != nil {
			return a
		}
	}
	return nil
}

func (p *parser) topLevel(doc *Document, top *yaml.Node) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			p.add(key, KindSchema, "keys must be plain words")
			continue
		}
		if seen[key.Value] {
			p.add(key, KindDuplicate, "key %q given twice", key.Value)
			continue
		}
		seen[key.Value] = true
		if key.HeadComment != "" {
			if i == 0 && doc.Header == "" {
				doc.Header = key.HeadComment
			} else {
				p.warn(key, KindFormat, "comment above %q is not kept by `sysgate baseline fmt`; move it into a reason", key.Value)
			}
		}
		if key.LineComment != "" {
			p.dropComments(key)
		} else if val.Kind == yaml.ScalarNode {
			p.dropComments(val)
		}
		switch key.Value {
		case "version":
			p.version(doc, val)
		case "agent":
			if s, ok := p.scalar(val, "agent"); ok {
				if !namePattern.MatchString(s) {
					p.add(val, KindSchema, "agent name %q: use letters, digits, '.', '_' and '-'", s)
				}
				doc.Agent = s
			}
		case "scheduling":
			if s, ok := p.scalar(val, "scheduling"); ok {
				m, err := scheduling.ParseMode(s)
				if err != nil {
					p.add(val, KindSchema, "%s", err)
				}
				doc.Scheduling, doc.schedulingLine = m, key.Line
			}
		case "environment":
			p.environment(doc, val)
		case "extends":
			p.extends(doc, val)
		case "programs":
			doc.programsLine = key.Line
			p.programs(doc, val)
		case "files":
			doc.filesLine, doc.filesFlow = key.Line, val.Style&yaml.FlowStyle != 0
			p.files(doc, val)
		case "network":
			p.network(doc, val)
		case "syscalls":
			doc.syscallsLine = key.Line
			doc.Syscalls = p.sections(val, "syscalls")
		case "unmonitored":
			doc.unmonitoredLine = key.Line
			doc.Unmonitored = p.unmonitored(val)
		case "groups":
			doc.groupsLine = key.Line
			p.groups(doc, val)
		default:
			p.add(key, KindSchema, "unknown key %q (known: version, agent, scheduling, environment, extends, programs, files, network, syscalls, unmonitored, groups)", key.Value)
		}
	}
	if !seen["version"] {
		p.add(top, KindSchema, "missing \"version: %d\"", FormatVersion)
	}
}

func (p *parser) version(doc *Document, val *yaml.Node) {
	if val.Kind != yaml.ScalarNode || val.Tag != "!!int" {
		p.add(val, KindSchema, "version must be the number %d", FormatVersion)
		return
	}
	v, err := strconv.Atoi(val.Value)
	if err != nil || v != FormatVersion {
		p.add(val, KindSchema, "unsupported version %s (this sysgate reads version %d)", val.Value, FormatVersion)
		return
	}
	doc.Version = v
}

// scalar returns a scalar's text. Any scalar tag is accepted (a reason
// "yes" is text), but null is not.
func (p *parser) scalar(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		p.add(n, KindSchema, "%s must be a single value", what)
		return "", false
	}
	if n.Tag == "!!null" || n.Value == "" {
		p.add(n, KindSchema, "%s is empty", what)
		return "", false
	}
	return n.Value, true
}

func (p *parser) extends(doc *Document, val *yaml.Node) {
	if val.Kind != yaml.SequenceNode {
		p.add(val, KindSchema, "extends must be a list of baseline files")
		return
	}
	seen := map[string]bool{}
	for _, item := range val.Content {
		s, ok := p.scalar(item, "extends entry")
		if !ok {
			continue
		}
		if seen[s] {
			p.add(item, KindDuplicate, "%q extended twice", s)
			continue
		}
		seen[s] = true
		doc.Extends = append(doc.Extends, Ref{Path: s, Line: item.Line})
		p.dropComments(item)
	}
}

func (p *parser) groups(doc *Document, val *yaml.Node) {
	if val.Kind != yaml.MappingNode {
		p.add(val, KindSchema, "groups must map a group name to its reason and syscalls")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(val.Content); i += 2 {
		key, body := val.Content[i], val.Content[i+1]
		name, ok := p.scalar(key, "group name")
		if !ok {
			continue
		}
		if !namePattern.MatchString(name) {
			p.add(key, KindSchema, "group name %q: use letters, digits, '.', '_' and '-'", name)
			continue
		}
		if seen[name] {
			p.add(key, KindDuplicate, "group %q defined twice", name)
			continue
		}
		seen[name] = true
		g := Group{Name: name, Line: key.Line, Comment: key.HeadComment}
		if body.Kind != yaml.MappingNode {
			p.add(body, KindSchema, "group %q must have a reason and syscalls", name)
			continue
		}
		for j := 0; j+1 < len(body.Content); j += 2 {
			k, v := body.Content[j], body.Content[j+1]
			p.dropComments(k)
			switch k.Value {
			case "reason":
				g.Reason, _ = p.scalar(v, "group reason")
			case "syscalls":
				g.Syscalls = p.sections(v, "group "+name)
			default:
				p.add(k, KindSchema, "unknown key %q in group %q (known: reason, syscalls)", k.Value, name)
			}
		}
		if g.Reason == "" {
			p.add(key, KindSchema, "group %q needs a reason: say why these syscalls are expected", name)
		}
		if len(g.Syscalls) == 0 {
			p.add(key, KindEmpty, "group %q has no syscalls", name)
		}
		doc.Groups = append(doc.Groups, g)
	}
}

// sections reads "arch: [entries]" mappings.
func (p *parser) sections(val *yaml.Node, where string) []Section {
	if val.Kind != yaml.MappingNode {
		p.add(val, KindSchema, "%s must map an architecture (x86_64, aarch64, ...) to a list of syscalls", where)
		return nil
	}
	var out []Section
	seen := map[scmp.Arch]bool{}
	for i := 0; i+1 < len(val.Content); i += 2 {
		key, list := val.Content[i], val.Content[i+1]
		arch, name, ok := p.archKey(key, seen, where)
		if !ok {
			continue
		}
		sec := Section{Arch: arch, Line: key.Line}
		if list.Kind != yaml.SequenceNode {
			p.add(list, KindSchema, "%s %s must be a list of syscall names, one per line", where, name)
			continue
		}
		if len(list.Content) == 0 {
			p.add(key, KindEmpty, "%s %s has no syscalls", where, name)
			continue
		}
		names := map[string]int{}
		for _, item := range list.Content {
			e, ok := p.entry(item, arch)
			if !ok {
				continue
			}
			if first, dup := names[e.Name]; dup {
				p.add(item, KindDuplicate, "%s listed twice for %s (first on line %d)", e.Name, name, first)
				continue
			}
			if other, line, clash := blindClash(names, e.Name); clash {
				p.add(item, KindDuplicate, "%s and %s on line %d: the argument-blind entry already allows every class; keep one", e.Name, other, line)
				continue
			}
			names[e.Name] = e.Line
			sec.Entries = append(sec.Entries, e)
		}
		out = append(out, sec)
	}
	return out
}

// archKey reads an architecture key of a section (syscalls, groups,
// environment), reporting an unknown one and one seen before.
func (p *parser) archKey(key *yaml.Node, seen map[scmp.Arch]bool, where string) (scmp.Arch, string, bool) {
	name, ok := p.scalar(key, "architecture")
	if !ok {
		return 0, "", false
	}
	p.dropComments(key)
	arch, err := scmp.ParseArch(name)
	if err != nil {
		p.add(key, KindArch, "unknown architecture %q (known: %s)", name, strings.Join(scmp.ArchNames(), ", "))
		return 0, "", false
	}
	if seen[arch] {
		p.add(key, KindDuplicate, "architecture %s listed twice in %s", name, where)
		return 0, "", false
	}
	seen[arch] = true
	return arch, name, true
}

// entry reads "- name" or "- name: reason".
func (p *parser) entry(item *yaml.Node, arch scmp.Arch) (DocEntry, bool) {
	e := DocEntry{Line: item.Line, Col: item.Column, Comment: item.HeadComment, LineComment: item.LineComment}
	nameNode := item
	switch item.Kind {
	case yaml.ScalarNode:
	case yaml.MappingNode:
		if len(item.Content) != 2 {
			p.add(item, KindSchema, "write one syscall per line: \"- name\" or \"- name: reason\"")
			return e, false
		}
		nameNode = item.Content[0]
		reason, ok := p.scalar(item.Content[1], "reason of "+nameNode.Value)
		if !ok {
			return e, false
		}
		e.Reason = reason
		e.Comment = joinComments(e.Comment, nameNode.HeadComment)
		e.LineComment = joinComments(e.LineComment, joinComments(nameNode.LineComment, item.Content[1].LineComment))
	default:
		p.add(item, KindSchema, "write one syscall per line: \"- name\" or \"- name: reason\"")
		return e, false
	}
	written, ok := p.scalar(nameNode, "syscall name")
	if !ok {
		return e, false
	}
	key, err := argclass.CanonicalKey(arch, written)
	if err != nil {
		if _, known := scmp.Number(arch, argclass.SyscallOf(written)); known || !strings.Contains(written, "(") {
			p.add(nameNode, KindClass, "%v", err)
			return e, false
		}
	}
	if err == nil {
		e.Name = key
	}
	name := argclass.SyscallOf(written)
	if _, known := scmp.Number(arch, name); !known {
		msg := fmt.Sprintf("unknown syscall %q on %s", name, arch)
		if hint := suggest(arch, name); hint != "" {
			msg += fmt.Sprintf(", did you mean %q?", hint)
		}
		if elsewhere := archesWith(name); len(elsewhere) > 0 {
			msg += fmt.Sprintf(" (known on %s)", strings.Join(elsewhere, ", "))
		}
		p.add(nameNode, KindSyscall, "%s", msg)
		return e, false
	}
	if e.Name == name && argclass.HasClasses(arch, name) && !p.inUnmonitored {
		p.warn(nameNode, KindArgBlind, "%s is argument-blind: it allows any %s; name the classes the agent uses, e.g. %s (`sysgate record` learns them)",
			name, argclass.ClassWhat(arch, name), classExample(arch, name))
	}
	if c, ok := ChannelOf(name); ok && !c.Listener && !p.inUnmonitored {
		p.warn(nameNode, KindChannel, "%s is refused (%s) in every run: %s cannot be seen by the filter; "+
			"to let it through, move it to the unmonitored section with a reason", name, unixErrnoName(c.Errno), c.Unseen)
	}
	if r := risk.Label(e.Name); r != "" {
		switch {
		case e.Reason == "":
			p.add(nameNode, KindRisk, "%s is risky (%s): %s; give a reason, as \"- %s: why the agent needs it\"", e.Name, r, risk.Reason(e.Name), e.Name)
		case strings.HasPrefix(e.Reason, "unreviewed"):
			p.warn(nameNode, KindUnreviewed, "%s is risky (%s) and its reason is still the record-mode placeholder: review it", e.Name, r)
		}
	}
	return e, true
}
