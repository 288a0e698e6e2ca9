package update

import "github.com/sysgate/sysgate/internal/untrusted"

// cell is text the agent or a baseline chose, for a markdown table cell
// or list item; code the same inside a code span.
func cell(s string) string { return untrusted.Markdown(s) }
func code(s string) string { return untrusted.MarkdownCellCode(s) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
