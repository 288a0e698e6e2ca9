package harness

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/baseline"
)

// WithBaselineSnapshot adds files sysgate reads around the run but does
// not check against, taken before the run (baseline.SnapshotStack): the
// record target and its bases. The run compares them afterwards as it
// does its own baselines (Result.ModifiedBaselines).
func WithBaselineSnapshot(s *baseline.Snapshot) Option {
	return func(c *runConfig) { c.snapshots = append(c.snapshots, s) }
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

// outOfReach is what the agent's mount namespace hides and makes
// read-only: sysgate's state directory (audit tuning, claims on runs)
// under an empty tmpfs, and the run's files (its baselines and what they
// extend, the caller's snapshots, the observation file and the caller's
// WithReadOnly files) bound read-only.
// The before/after comparison stays: an agent without a mount namespace
// of sysgate's making (a future backend) or a file reached by another
// path (a hard link) is still caught.
func outOfReach(snapshots []*baseline.Snapshot, files ...string) (hide, readOnly []string) {
	for _, s := range snapshots {
		readOnly = append(readOnly, s.Paths()...)
	}
	for _, f := range files {
		if f != "" {
			readOnly = append(readOnly, f)
		}
	}
	for i, p := range readOnly {
		if abs, err := filepath.Abs(p); err == nil {
			readOnly[i] = abs
		}
	}
	slices.Sort(readOnly)
	return []string{auditctl.StateDir}, slices.Compact(readOnly)
}

// boundPaths are the caller's read-only paths the fence bound: the ones
// that exist (a missing one is skipped), absolute, sorted.
func boundPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(abs); err == nil {
			out = append(out, abs)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
