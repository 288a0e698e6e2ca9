package baseline

import (
	"bytes"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format renders d in the one canonical layout: header, version, agent,
// extends, programs, syscalls per arch, unmonitored channels per arch,
// groups; everything sorted, one syscall or program per line. Parsing the
// output and formatting again gives the same bytes.
func (d *Document) Format() []byte {
	d.normalize()
	var b bytes.Buffer
	header := d.Header
	if header == "" {
		header = DefaultHeader
	}
	writeComment(&b, "", header)
	b.WriteString("\n")
	b.WriteString("version: " + strconv.Itoa(FormatVersion) + "\n")
	if d.Agent != "" {
		b.WriteString("agent: " + yamlString(d.Agent) + "\n")
	}
	if d.Scheduling != 0 {
		b.WriteString("scheduling: " + d.Scheduling.String() + "\n")
	}
	writeEnvironment(&b, d)
	if len(d.Extends) > 0 {
		b.WriteString("extends:\n")
		for _, ref := range d.Extends {
			b.WriteString("  - " + yamlString(ref.Path) + "\n")
		}
	}
	writePrograms(&b, d)
	writeFiles(&b, d)
	writeNetwork(&b, d)
	if len(d.Syscalls) > 0 {
		b.WriteString("syscalls:\n")
		writeSections(&b, "  ", d.Syscalls)
	}
	if len(d.Unmonitored) > 0 {
		b.WriteString("unmonitored:\n")
		writeSections(&b, "  ", d.Unmonitored)
	}
	if len(d.Groups) > 0 {
		b.WriteString("groups:\n")
		for _, g := range d.Groups {
			writeComment(&b, "  ", g.Comment)
			b.WriteString("  " + g.Name + ":\n")
			b.WriteString("    reason: " + yamlString(g.Reason) + "\n")
			b.WriteString("    syscalls:\n")
			writeSections(&b, "      ", g.Syscalls)
		}
	}
	return b.Bytes()
}

func writeSections(b *bytes.Buffer, indent string, sections []Section) {
	for _, sec := range sections {
		if len(sec.Entries) == 0 {
			continue
		}
		b.WriteString(indent + sec.Arch.String() + ":\n")
		for _, e := range sec.Entries {
			writeComment(b, indent+"  ", e.Comment)
			b.WriteString(indent + "  - " + e.Name)
			if e.Reason != "" {
				b.WriteString(": " + yamlString(e.Reason))
			}
			if e.LineComment != "" {
				b.WriteString(" " + strings.ReplaceAll(e.LineComment, "\n", " "))
			}
			b.WriteString("\n")
		}
	}
}

// writePrograms writes the programs section: "- PATH", or with a reason
// or a content pin "- path: PATH" and "reason: WHY" and "sha256: HEX"
// below (a list, one per line, for several); "programs: []" keeps an empty
// section (it still gates: no program may run but the bases').
func writePrograms(b *bytes.Buffer, d *Document) {
	if !d.HasPrograms && len(d.Programs) == 0 {
		return
	}
	if len(d.Programs) == 0 {
		b.WriteString("programs: []\n")
		return
	}
	b.WriteString("programs:\n")
	for _, e := range d.Programs {
		writeComment(b, "  ", e.Comment)
		b.WriteString("  - ")
		if e.Reason != "" || len(e.SHA256) > 0 {
			b.WriteString("path: ")
		}
		b.WriteString(yamlString(e.written()))
		if e.LineComment != "" {
			b.WriteString(" " + strings.ReplaceAll(e.LineComment, "\n", " "))
		}
		b.WriteString("\n")
		if e.Reason != "" {
			b.WriteString("    reason: " + yamlString(e.Reason) + "\n")
		}
		switch len(e.SHA256) {
		case 0:
		case 1:
			b.WriteString("    sha256: " + yamlString(e.SHA256[0]) + "\n")
		default:
			b.WriteString("    sha256:\n")
			for _, s := range e.SHA256 {
				b.WriteString("      - " + yamlString(s) + "\n")
			}
		}
	}
}

// writeComment writes a comment block as yaml.v3 reported it ("# a\n# b"),
// re-indented.
func writeComment(b *bytes.Buffer, indent, comment string) {
	if comment == "" {
		return
	}
	for _, line := range strings.Split(comment, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			b.WriteString("\n")
			continue
		}
		if !strings.HasPrefix(line, "#") {
			line = "# " + line
		}
		b.WriteString(indent + line + "\n")
	}
}

// yamlString writes s plain when YAML reads it back as the same text in
// every position the writer uses it (a mapping value or a list item), and
// double-quoted otherwise. yaml.v3 itself decides, so no hand-written list
// of YAML's special cases can drift from the parser.
//
// Text that is not valid UTF-8 (only possible in a Document built in code:
// the parser refuses it) is written with U+FFFD in place of the bad bytes,
// because a YAML escape names a code point, not a byte.
func yamlString(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if plainSafe(s) {
		return s
	}
	return strconv.Quote(s)
}

func plainSafe(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, "\n\r\t#\"'\\") {
		return false
	}
	for _, probe := range []string{"k: " + s + "\n", "- " + s + "\n", "- k: " + s + "\n"} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(probe), &n); err != nil || !plainValue(&n, s) {
			return false
		}
	}
	return true
}

// plainValue reports whether the probe's last scalar is s, plain, and not null.
func plainValue(n *yaml.Node, s string) bool {
	for n.Kind == yaml.DocumentNode || n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			return false
		}
		n = n.Content[len(n.Content)-1]
	}
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag != "!!null" && n.Value == s
}
