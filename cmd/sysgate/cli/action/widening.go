package action

import (
	"strings"
)

// WideningEntries is the one line the widening-verdict step fails with,
// from the text `sysgate baseline diff --base` prints: its indented entry
// lines without their reasons and risk notes, joined with ", "
// ("agent.yaml:12: x86_64 socket(AF_INET), ...").
func WideningEntries(diff string) string {
	var entries []string
	for _, l := range strings.Split(diff, "\n") {
		e, ok := strings.CutPrefix(l, "  ")
		if !ok {
			continue
		}
		for _, cut := range []string{" [risky: ", "; reason: ", "; review: "} {
			e, _, _ = strings.Cut(e, cut)
		}
		entries = append(entries, e)
	}
	return strings.Join(entries, ", ")
}

// WideningVerdict is the widening-verdict step's error: entries is the
// widening step's entries output.
func WideningVerdict(entries string) string {
	return "on-widening: fail: this pull request widens the baseline: " + or(entries, "see the annotations") +
		". The pull request is judged by the baseline it brings: someone who owns the baseline files must review each entry" +
		" (docs/action.md: who reviews a baseline)"
}
