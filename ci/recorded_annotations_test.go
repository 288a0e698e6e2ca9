package ci

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
)

// A record run's new syscalls are what it learned: a notice for the run,
// no error annotations (a passing record job must not show errors); the
// same result in check mode is errors at the baseline lines.
func TestRecordedRunsAnnotateNotices(t *testing.T) {
	check := fixtureResult()
	rec := fixtureResult()
	rec.Mode = baseline.ModeRecord
	if !rec.Recorded() {
		t.Fatal("the fixture in record mode is not a recorded run")
	}
	errors := func(as []Annotation) (n int) {
		for _, a := range as {
			if a.Level == "error" {
				n++
			}
		}
		return n
	}
	if n := errors(FromResults("", check).Annotations()); n == 0 {
		t.Fatal("the check run has no error annotations")
	}
	as := FromResults("", rec).Annotations()
	if n := errors(as); n != 0 {
		t.Errorf("the record run has %d error annotations: %v", n, as)
	}
	found := false
	for _, a := range as {
		if a.Level == "notice" && strings.Contains(a.Title, "recorded") && strings.Contains(a.Message, "learned") {
			found = true
		}
	}
	if !found {
		t.Errorf("no notice for the record run: %v", as)
	}
}
