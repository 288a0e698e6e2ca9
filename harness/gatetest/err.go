package gatetest

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
)

// RunError is the error form of a result that is not clean, so
// Expect(gatetest.Err(r)).To(Succeed()) prints the readable diff.
type RunError struct{ Result *harness.Result }

// Err returns nil for a clean run, else a *RunError.
func Err(r *harness.Result) error {
	if r.Verdict == harness.VerdictClean {
		return nil
	}
	return &RunError{Result: r}
}

// Error is the run's summary (ci.Summary).
func (e *RunError) Error() string { return ci.Summary(e.Result) }

// FormattedGomegaError is what Gomega prints for the error: why the run
// was inconclusive or its agent failed, else the readable diff
// (ci.ViolationReport).
func (e *RunError) FormattedGomegaError() string {
	r := e.Result
	switch r.Verdict {
	case harness.VerdictInconclusive:
		return fmt.Sprintf("sysgate: run of %s was inconclusive: %s", r.Agent, r.Inconclusive)
	case harness.VerdictAgentFailed:
		return fmt.Sprintf("sysgate: %s stayed within its baseline, but the agent failed (%s)", r.Agent, ci.ExitText(r))
	}
	files := strings.Join(r.Baselines, ", ")
	if files == "" {
		files = "its baseline"
	}
	return ci.ViolationReport(r, r.Violations, r.ProgramViolations, files)
}
