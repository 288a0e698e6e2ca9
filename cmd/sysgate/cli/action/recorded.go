package action

import (
	"fmt"
	"strings"
)

// RecordedSummary is the step summary's section after a record: which
// baseline files changed, where the new files and the patch are, what to
// do with them, and the first 300 lines of the patch. where names the
// artifact or the reports directory the files are in.
func RecordedSummary(changed []string, where, patch string) string {
	var b strings.Builder
	b.WriteString("### Recorded baseline\n\n")
	if len(changed) == 0 {
		b.WriteString("Record changed no baseline file: what the agent did is in them already.\n\n")
		return b.String()
	}
	lines := strings.SplitAfter(patch, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	added, removed := 0, 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	n := strings.Count(patch, "\n")
	fmt.Fprintf(&b, "Record changed `%s` (+%d −%d lines). %s holds the new files under `baseline-update/` and `baseline-update.patch`: "+
		"at the top of your checkout run `git apply baseline-update.patch`, replace each `unreviewed: seen in record mode` reason "+
		"with why the agent needs the entry (`sysgate baseline validate --strict` lists them), and commit.\n\n",
		strings.Join(changed, "`, `"), added, removed, where)
	fence := Fence(patch)
	fmt.Fprintf(&b, "<details><summary>baseline-update.patch (%d lines)</summary>\n\n%sdiff\n", n, fence)
	b.WriteString(strings.Join(lines[:min(300, len(lines))], ""))
	b.WriteString(fence + "\n")
	if n > 300 {
		fmt.Fprintf(&b, "(the first 300 of %d lines: the whole patch is in `baseline-update.patch`)\n", n)
	}
	b.WriteString("\n</details>\n\n")
	return b.String()
}

// Fence is a markdown code fence longer than any run of backticks in s
// (a baseline may quote a path the agent chose), at least three.
func Fence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(longest, 2)+1)
}
