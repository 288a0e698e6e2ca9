package harness

import (
	"fmt"
	"slices"

	"github.com/sysgate/sysgate/baseline"
)

// WithBaselineSnapshot adds files sysgate reads around the run but does
// not check against, taken before the run (baseline.SnapshotStack): the
// record target and its bases. The run compares them afterwards as it
// does its own baselines (Result.ModifiedBaselines).
func WithBaselineSnapshot(s *baseline.Snapshot) Option {
	return func(c *runConfig) { c.snapshots = append(c.snapshots, s) }
}

// ModifiedMessage is what every report says about a baseline the agent
// changed during its run.
func ModifiedMessage(file string) string {
	return fmt.Sprintf("the agent modified its own baseline %s", file)
}

// modifiedFiles lists the files of snapshots that changed, each once.
func modifiedFiles(snapshots []*baseline.Snapshot) []string {
	var out []string
	for _, s := range snapshots {
		for _, f := range s.Changed() {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
