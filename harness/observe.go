package harness

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/safefile"
)

// MergeObservationFile merges obs into the observation file at path,
// creating it if needed. An exclusive flock on path+".lock" serialises
// parallel Ginkgo workers and go test packages writing the same file.
func MergeObservationFile(path string, obs *baseline.Observation) error {
	lock, err := safefile.OpenLock(path + ".lock")
	if err != nil {
		return fmt.Errorf("merge observation: %w", err)
	}
	defer lock.Close()
	if err := kernel.Flock(lock, kernel.LockExclusive); err != nil {
		return fmt.Errorf("merge observation: %w", err)
	}
	defer kernel.Flock(lock, kernel.LockUnlock)
	merged, err := baseline.ReadObservation(path)
	if errors.Is(err, fs.ErrNotExist) {
		merged = baseline.NewObservation(obs.Agent)
	} else if err != nil {
		return err
	}
	if err := merged.Merge(obs); err != nil {
		return err
	}
	return baseline.WriteObservation(path, merged)
}
