package ci

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// hintReason is the reason a fix hint writes for an entry that needs one
// (a risky syscall, program or destination, a sensitive file). It starts
// "unreviewed", as record's placeholder does: the baseline is valid with
// it (validate warns, --strict fails), so the hint works as written and
// still leaves the reviewer to say why.
const hintReason = "unreviewed: say why the agent needs it"

// hintIndent sets a hint's baseline lines apart from its prose: each is
// indented by it beyond the sentence that says where they go, to be
// pasted into the list that sentence names, at that list's indentation.
const hintIndent = "    "

// syscallLines are the lines of a syscall list that allow name: "- name",
// or "- name: REASON" for a risky one.
func syscallLines(name string, risky bool) []string {
	if risky {
		return []string{"- " + yamlScalar(name) + ": " + yamlScalar(hintReason)}
	}
	return []string{"- " + yamlScalar(name)}
}

// pathLines are the lines of a programs, files or network list that
// allow value: "- value", or "- path: value" with "reason: REASON" on the
// next line for one that needs a reason.
func pathLines(value string, reason bool) []string {
	if reason {
		return []string{"- path: " + yamlScalar(value), "  reason: " + yamlScalar(hintReason)}
	}
	return []string{"- " + yamlScalar(value)}
}

// hintBlock is lines as a hint shows them: each on a line of its own,
// indented by hintIndent, after a newline.
func hintBlock(lines []string) string {
	return "\n" + hintIndent + strings.Join(lines, "\n"+hintIndent)
}

// hintBlockAt is hintBlock under a sentence indented by indent, as the
// text report's are.
func hintBlockAt(indent string, lines []string) string {
	return strings.ReplaceAll(hintBlock(lines), "\n", "\n"+indent)
}

// yamlScalar is s as a YAML scalar: plain where YAML reads it back as the
// same string, quoted otherwise ("{home}/x", "a: b", control characters).
// A string yaml would write over several lines (a block scalar) is
// double-quoted instead: a hint's entry stays on its line.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err == nil && strings.Count(string(out), "\n") > 1 {
		out, err = yaml.Marshal(&yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: s})
	}
	if err != nil {
		return strconv.Quote(s) // a string always marshals
	}
	return strings.TrimSuffix(string(out), "\n")
}
