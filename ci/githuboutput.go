package ci

import (
	"fmt"
	"io"
)

// WriteGitHubOutput appends the gate's step outputs in the format of
// GitHub's $GITHUB_OUTPUT file (--github-output): verdict=<verdict> and
// violations=<n> and drift=true|false (Drifted), the syscalls, programs,
// file accesses and destinations outside the baselines in the runs that
// failed on them (a record run's new syscalls, and a bite a passing spec
// expected, are not violations). The caller opens the file; values never
// hold a newline, so no delimiter syntax is needed.
func (r *Report) WriteGitHubOutput(w io.Writer) error {
	n := 0
	for _, run := range r.gateRuns() {
		if run.Outcome() == VerdictViolation {
			n += len(run.Violations) + len(run.ProgramViolations) + len(run.FileViolations) + len(run.NetworkViolations)
		}
	}
	_, err := fmt.Fprintf(w, "verdict=%s\nviolations=%d\ndrift=%t\n", r.Verdict(), n, r.Drifted())
	return err
}

// Drifted reports whether a run that failed on violations ran in another
// environment than its baselines were recorded in, or in one nobody
// recorded: the case for a baseline-update pull request rather than a
// code fix (the workflow's drift output).
func (r *Report) Drifted() bool {
	for _, run := range r.gateRuns() {
		if run.Outcome() != VerdictViolation {
			continue
		}
		if len(run.Unrecorded) > 0 || run.MissingArch || (run.Drift != nil && len(run.Drift.Changes) > 0) {
			return true
		}
	}
	return false
}
