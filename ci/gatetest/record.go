package gatetest

import (
	"context"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// Record runs agent in record mode as policy says (until further runs
// add nothing to its baseline, or exactly policy.Exact times), each run
// with the same options, and merges the runs' observations into the file
// at observation (as harness.WithObservationFile does) only when every
// run was clean: the first run that is not (inconclusive, a failed
// agent, a changed baseline) ends the recording, is returned, and leaves
// the file as it was. The Result returned otherwise is the last run's,
// holding every run's observation. The agent runs in the same workspace
// each time: an agent that is not idempotent needs policy ExactRuns(1)
// (SYSGATE_RECORD_RUNS=1) and a Ginkgo --repeat instead.
func Record(ctx context.Context, agent harness.Agent, policy baseline.RecordRuns, observation string, opts ...harness.Option) (*verdict.Result, error) {
	opts = append(opts, harness.WithMode(baseline.ModeRecord))
	if policy.Exact == 1 {
		return harness.Run(ctx, agent, append(opts, harness.WithObservationFile(observation))...)
	}
	rec := baseline.NewRecording(policy, strings.TrimSuffix(observation, ".json")+".yaml")
	opts = append(opts, harness.WithObservationFile(""))
	for {
		r, err := harness.Run(ctx, agent, opts...)
		// A record run's new syscalls make it a "violation" of the
		// spec's baselines: that is what it learns, not a reason to stop.
		if err != nil || !r.Conclusive() || r.Verdict == verdict.VerdictAgentFailed || len(r.ModifiedBaselines) > 0 || len(r.ChangedBaselines) > 0 {
			return r, err
		}
		again, err := rec.Add(r.Observed, baseline.RecordOptions{Agent: r.Agent, Select: r.Selector})
		if err != nil {
			return r, err
		}
		r.Observed = rec.Merged
		r.Recording = verdict.RecordingOf(rec.Stability)
		if again {
			continue
		}
		if err := harness.MergeObservationFile(observation, rec.Merged); err != nil {
			return r, err
		}
		r.ObservationFile = observation
		return r, nil
	}
}
