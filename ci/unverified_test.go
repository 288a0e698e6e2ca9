package ci

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/verdict"
)

// TestUnverifiedExecsOfACleanRun: execs of short-lived children that were
// gone before /proc showed them are counted in the text's summary line
// and the step summary, with no warning annotation; a warning stays for
// an unverified exec of a program outside the baseline.
func TestUnverifiedExecsOfACleanRun(t *testing.T) {
	clean := cleanResult()
	clean.UnverifiedExecs = 5
	var text bytes.Buffer
	if err := WriteText(&text, clean, Palette{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	if len(lines) < 2 || !strings.HasSuffix(lines[1], "; 5 execs unverified (gone before /proc showed the program)") {
		t.Errorf("the summary line does not count the unverified execs:\n%s", text.String())
	}
	if strings.Contains(text.String(), "WARNING") {
		t.Errorf("a clean run's unverified execs are a warning:\n%s", text.String())
	}
	r := FromResults("", clean)
	for _, a := range r.Annotations() {
		if a.Level == "warning" {
			t.Errorf("a clean run's unverified execs gave a warning: %s", a)
		}
	}
	var summary bytes.Buffer
	if err := r.WriteSummary(&summary); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary.String(), "Execs unverified (gone before /proc showed the program): "+clean.Agent+" 5.") {
		t.Errorf("the step summary does not count the unverified execs:\n%s", summary.String())
	}

	outside := programResult()
	outside.UnverifiedOutside = []verdict.UnverifiedExec{{Path: "/usr/bin/curl", Count: 2}}
	var warnings []Annotation
	for _, a := range FromResults("", outside).Annotations() {
		if a.Level == "warning" && strings.Contains(a.Title, "unverified") {
			warnings = append(warnings, a)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "2 execs of /usr/bin/curl, outside the baseline") {
		t.Errorf("want one warning for the unverified execs of /usr/bin/curl, got %v", warnings)
	}
}
