package cli

import (
	"testing"

	"github.com/sysgate/sysgate/internal/golden"
)

// The pull request's review checklist: a line finding links to its line,
// a file finding to its file, an unpinned entry is left out (the next
// record pins it), anything else is listed as it is.
func TestReviewList(t *testing.T) {
	findings := "baselines/agent.yaml:12: warning: unreviewed: seen in record mode [unreviewed]\n" +
		"baselines/agent.yaml:14: x86_64 openat: argument-blind [arg-blind]\n" +
		"baselines/agent.yaml:20: program /usr/bin/sh has no sha256 [unpinned]\n" +
		"baselines/agent.yaml: no network section [missing-section]\n" +
		"sysgate: 3 findings\n"
	unformatted := "baselines/other.yaml\n"
	got := reviewList("https://github.example/o/r/blob/0123abc/sub/", findings, unformatted)
	golden.Check(t, "testdata/action/review-list.md", []byte(got))
	if reviewList("x/", "", "") != "" {
		t.Error("clean files gave a review list")
	}
}
