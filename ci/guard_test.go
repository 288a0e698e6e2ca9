package ci

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// A run can fail on a changed baseline alone, with no new syscall: the
// text and the annotations must say which file, or the job fails unexplained.
func TestAChangedBaselineIsNamedInTextAndAnnotations(t *testing.T) {
	const changed, protected = "/w/baselines/b/b.yaml", "/w/baselines"
	r := &verdict.Result{Agent: "a", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation,
		ChangedBaselines: []string{changed}, ProtectedBaselines: []string{protected}}
	var text strings.Builder
	if err := WriteText(&text, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{GuardChangedMessage(changed), "read-only for the agent: the gate's baselines " + protected} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var found bool
	for _, a := range FromResults("/w", r).Annotations() {
		found = found || a.Level == "error" && strings.Contains(a.Message, changed)
	}
	if !found {
		t.Errorf("no error annotation names %s", changed)
	}
}

// The text header names every path the caller made read-only for the
// agent (sysgate --read-only: the action's paths on a runner).
func TestReadOnlyPathsAreNamedInTheHeader(t *testing.T) {
	r := &verdict.Result{Agent: "a", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
		ReadOnly: []string{"/w/_actions", "/w/_temp/_runner_file_commands"}}
	var text strings.Builder
	if err := WriteText(&text, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	if want := "read-only for the agent: /w/_actions, /w/_temp/_runner_file_commands\n"; !strings.Contains(text.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, text.String())
	}
}
