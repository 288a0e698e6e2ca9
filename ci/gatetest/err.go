package gatetest

import (
	"github.com/onsi/gomega/format"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/verdict"
)

// RunError is the error form of a result that is not clean, so
// Expect(gatetest.Err(r)).To(Succeed()) prints the readable diff.
type RunError struct{ Result *verdict.Result }

// Err returns nil for a clean run, else a *RunError.
func Err(r *verdict.Result) error {
	if r.Verdict == verdict.VerdictClean {
		return nil
	}
	return &RunError{Result: r}
}

// Error is the run's summary (ci.Summary).
func (e *RunError) Error() string { return ci.Summary(e.Result) }

// FormattedGomegaError is what Gomega prints for the error
// (ci.FailureText).
func (e *RunError) FormattedGomegaError() string { return ci.FailureText(e.Result) }

// A spec that imports gatetest sees a *verdict.Result in a Gomega failure
// as sysgate check prints its summary (ci.Summary), not as harness's
// one-line data (Result.GomegaString).
func init() {
	format.RegisterCustomFormatter(func(v any) (string, bool) {
		if r, ok := v.(*verdict.Result); ok && r != nil {
			return ci.Summary(r), true
		}
		return "", false
	})
}
