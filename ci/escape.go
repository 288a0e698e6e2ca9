package ci

import (
	"strings"

	"github.com/sysgate/sysgate/internal/untrusted"
)

// The renderers' escapes for what an agent names (paths, argv, process
// names): see package untrusted. Rendering helpers shared by several
// formats (process, argvLine, ranBy, programNotes) escape for a terminal
// early, which the markdown escapes build on.

// term shows s's control characters as visible escapes, for a terminal,
// a CI log, an annotation or a SARIF or JUnit message.
func term(s string) string { return untrusted.Terminal(s) }

// cell keeps a value inside its markdown table cell (or list item) and
// shows it as text: no HTML, mention, code span, link or new line.
func cell(s string) string { return untrusted.Markdown(s) }

// code is s as inline markdown code inside a table cell, fenced so that
// backticks in s cannot end it (escaped text where a code span cannot
// show s safely).
func code(s string) string { return untrusted.MarkdownCellCode(s) }

// inlineCode is code outside a table (a list item, a heading).
func inlineCode(s string) string { return untrusted.MarkdownCode(s) }

// reasons is a Result's Inconclusive on one line: its parts (one a line,
// sysgate's own separators; the agent's names in them escaped by the
// harness) joined by "; ", so no separator shows as an escaped \x0a.
func reasons(inconclusive string) string {
	parts := strings.Split(inconclusive, "\n")
	for i, p := range parts {
		parts[i] = term(p)
	}
	return strings.Join(parts, "; ")
}
