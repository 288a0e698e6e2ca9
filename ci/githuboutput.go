package ci

import (
	"fmt"
	"io"
)

// WriteGitHubOutput appends the gate's step outputs in the format of
// GitHub's $GITHUB_OUTPUT file (--github-output): verdict=<verdict> and
// violations=<n>, the syscalls and programs outside the baselines in the runs that
// failed on them (a record run's new syscalls, and a bite a passing spec
// expected, are not violations). The caller opens the file; values never
// hold a newline, so no delimiter syntax is needed.
func (r *Report) WriteGitHubOutput(w io.Writer) error {
	n := 0
	for _, run := range r.gateRuns() {
		if run.Outcome() == VerdictViolation {
			n += len(run.Violations) + len(run.ProgramViolations)
		}
	}
	_, err := fmt.Fprintf(w, "verdict=%s\nviolations=%d\n", r.Verdict(), n)
	return err
}
