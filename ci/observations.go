package ci

import (
	"errors"
	"fmt"

	"github.com/sysgate/sysgate/baseline"
)

// Observations returns what the report's conclusive record-mode runs
// observed, merged per agent. With checkRuns it takes check and enforce
// runs too: their observations hold only the syscalls outside the
// baseline, so a baseline update from them must keep unseen entries
// (UpdateOptions.KeepUnseen). Bites (violations a passing spec asserted)
// are always left out: they must never reach a baseline. A run it would
// take that has an exec mismatch is ErrExecMismatch: what it ran must
// not reach a baseline either, and leaving the run out would drop the
// rest of what it did.
func (r *Report) Observations(checkRuns bool) (map[string]*baseline.Observation, error) {
	out := map[string]*baseline.Observation{}
	for _, run := range r.Runs {
		if run.Expected || !run.Conclusive() || run.Observed == nil {
			continue
		}
		if run.Mode != baseline.ModeRecord && !checkRuns {
			continue
		}
		for _, v := range run.ProgramViolations {
			if v.Mismatch != "" {
				return nil, fmt.Errorf("observations of %s (%s): %w: %s", run.Agent, OrDash(run.Spec), ErrExecMismatch, v.Mismatch)
			}
		}
		m := out[run.Agent]
		if m == nil {
			m = baseline.NewObservation(run.Agent)
			out[run.Agent] = m
		}
		if err := m.Merge(run.Observed); err != nil {
			return nil, fmt.Errorf("observations of %s: %w", run.Agent, err)
		}
		if run.Mode != baseline.ModeRecord {
			// A check or enforce run logs only what its baselines lack,
			// as an incremental record does.
			m.Incremental = true
		}
	}
	return out, nil
}

// ErrExecMismatch is matched by Observations refusing a run in which an
// exec ran another program than the one it named.
var ErrExecMismatch = errors.New("an exec ran another program than it named")
