package harness

import (
	"strings"

	"github.com/sysgate/sysgate/verdict"
)

// summary is what a test prints about a run it did not expect: the
// Result's line of data and its findings. A report's sentences about a
// run are ci's (ci.Summary), which harness's own tests cannot import.
func summary(r *verdict.Result) string {
	var b strings.Builder
	b.WriteString(r.GomegaString())
	if len(r.Violations) > 0 {
		b.WriteString("\n" + r.Violations.String())
	}
	for _, v := range r.ProgramViolations {
		b.WriteString("\n  " + v.String())
	}
	for _, v := range r.FileViolations {
		b.WriteString("\n  " + v.String())
	}
	for _, v := range r.NetworkViolations {
		b.WriteString("\n  " + v.String())
	}
	return b.String()
}
