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
	if !d.HasFiles && len(d.Files) == 0 {
		return
	}
	if len(d.Files) == 0 {
		b.WriteString("files: {}\n")
		return
	}
	b.WriteString("files:\n")
	for _, op := range fileOps {
		opened := false
		for _, e := range d.Files {
			if e.Op != op {
				continue
			}
			if !opened {
				b.WriteString("  " + op.String() + ":\n")
				opened = true
			}
			writeComment(b, "    ", e.Comment)
			b.WriteString("    - ")
			if e.Reason != "" {
				b.WriteString("path: ")
			}
			b.WriteString(yamlString(e.Pattern))
			if e.LineComment != "" {
				b.WriteString(" " + strings.ReplaceAll(e.LineComment, "\n", " "))
			}
			b.WriteString("\n")
			if e.Reason != "" {
				b.WriteString("      reason: " + yamlString(e.Reason) + "\n")
			}
		}
	}
}
