package baseline

import (
	"bytes"
	"strings"
)

// writeFiles writes the files section: per access (read, write, exec,
// delete), one glob per line, sorted; "- path: GLOB" with "reason: WHY"
// below for an entry with a reason. "files: {}" keeps an empty section:
// it still gates (no file may be touched but the bases' ones).
func writeFiles(b *bytes.Buffer, d *Document) {
	ops := make([]string, len(fileOps))
	for i, op := range fileOps {
		ops[i] = op.String()
	}
	entries := make([]listEntry, len(d.Files))
	for i, e := range d.Files {
		entries[i] = listEntry{op: e.Op.String(), pattern: e.Pattern, reason: e.Reason, comment: e.Comment, lineComment: e.LineComment}
	}
	writeListSection(b, "files", d.HasFiles, ops, entries)
}

// listEntry is one line of a section of per-call lists (files, network).
type listEntry struct {
	op, pattern, by, reason string
	comment, lineComment    string
}

// writeListSection writes section name: per op, in ops' order, its
// entries one per line; "- path: PATTERN" with "by:" and "reason:" below
// for an entry with either. "NAME: {}" keeps a section that is present
// and empty: it still gates.
func writeListSection(b *bytes.Buffer, name string, has bool, ops []string, entries []listEntry) {
	if !has && len(entries) == 0 {
		return
	}
	if len(entries) == 0 {
		b.WriteString(name + ": {}\n")
		return
	}
	b.WriteString(name + ":\n")
	for _, op := range ops {
		opened := false
		for _, e := range entries {
			if e.op != op {
				continue
			}
			if !opened {
				b.WriteString("  " + op + ":\n")
				opened = true
			}
			writeComment(b, "    ", e.comment)
			b.WriteString("    - ")
			if e.reason != "" || e.by != "" {
				b.WriteString("path: ")
			}
			b.WriteString(yamlString(e.pattern))
			if e.lineComment != "" {
				b.WriteString(" " + strings.ReplaceAll(e.lineComment, "\n", " "))
			}
			b.WriteString("\n")
			if e.by != "" {
				b.WriteString("      by: " + yamlString(e.by) + "\n")
			}
			if e.reason != "" {
				b.WriteString("      reason: " + yamlString(e.reason) + "\n")
			}
		}
	}
}
