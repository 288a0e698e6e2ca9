package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/safefile"
)

// MergeObservationFile merges obs into the observation file at path,
// creating the file and its directory (0755) if needed. An exclusive
// flock on that directory serialises parallel Ginkgo workers and go test
// packages writing the same file: the file itself is replaced by a
// rename, so it cannot hold the lock, and a lock file beside it would be
// left in the directory (removing one races with the next holder).
func MergeObservationFile(path string, obs *baseline.Observation) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("merge observation: %w", err)
	}
	lock, err := safefile.OpenDirLock(dir)
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
