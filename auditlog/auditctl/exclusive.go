package auditctl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// kernelSnapshot is /run/sysgate/exclusive.json: the global settings as
// they were when a fault-forcing test took ExclusiveKernel, restored on
// release or, after a crash, by the next process that takes runs.lock.
type kernelSnapshot struct {
	BacklogLimit    uint32 `json:"backlog_limit"`
	BacklogWaitTime uint32 `json:"backlog_wait_time"`
	RateLimit       uint32 `json:"rate_limit"`
	Enabled         uint32 `json:"enabled"`
	ActionsLogged   string `json:"actions_logged"`
	// HeldTuning: tuning.json listed holders when the snapshot was taken
	// (a test that holds the tuning, then takes ExclusiveKernel), so the
	// snapshot holds tuned values and tuning.json the ones from before.
	// Without it, holds in tuning.json were taken inside the exclusive
	// hold and saved values the test may have forced.
	HeldTuning bool `json:"held_tuning"`
	// Owner is the process that took the snapshot. Whoever recovers the
	// snapshot holds runs.lock, so the owner's hold is gone, even when
	// its process still looks alive (it drops its locks on the way out,
	// before it is a zombie): its holds of the run tuning are dead too.
	Owner holder `json:"owner"`
}

// exclusiveKernel takes runs.lock exclusively: it waits until no run on
// the machine holds AcquireTuning, and keeps new ones waiting, so a test
// may force global faults (actions_logged without log,
// backlog_wait_time=0, a rate limit) without disturbing other processes'
// runs. The audit backlog settings, rate limit, enabled flag and
// actions_logged are snapshotted first and restored by release. Only one
// holder per process at a time; runs of this process that hold
// AcquireTuning are not excluded (they are the test's own business).
func exclusiveKernel() (release func() error, err error) {
	exclusiveMu.Lock()
	if err := lockRuns(true); err != nil {
		exclusiveMu.Unlock()
		return nil, err
	}
	snap, err := snapshotKernel()
	if err == nil {
		err = writeJSON(stateFile("exclusive.json"), snap)
	}
	if err != nil {
		err = errors.Join(err, unlockRuns(true))
		exclusiveMu.Unlock()
		return nil, err
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			err = errors.Join(releaseSnapshot(snap), unlockRuns(true))
			exclusiveMu.Unlock()
		})
		return err
	}, nil
}

func snapshotKernel() (kernelSnapshot, error) {
	unlock, err := lockTuningFile()
	if err != nil {
		return kernelSnapshot{}, err
	}
	defer unlock()
	st, err := ReadStatus()
	if err != nil {
		return kernelSnapshot{}, err
	}
	logged, err := ReadActionsLogged()
	if err != nil {
		return kernelSnapshot{}, err
	}
	var tuning tuningState
	if _, err := readJSON(stateFile("tuning.json"), &tuning); err != nil {
		return kernelSnapshot{}, err
	}
	held := len(tuning.Holders) > 0 || tuning.Rules != nil
	owner, err := self()
	if err != nil {
		return kernelSnapshot{}, err
	}
	return kernelSnapshot{BacklogLimit: st.BacklogLimit, BacklogWaitTime: st.BacklogWaitTime, RateLimit: st.RateLimit,
		Enabled: st.Enabled, ActionsLogged: logged, HeldTuning: held, Owner: owner}, nil
}

func restoreKernel(s kernelSnapshot) error {
	c, err := dialControl()
	if err != nil {
		return err
	}
	defer c.Close()
	errs := []error{c.setBacklog(s.BacklogLimit, s.BacklogWaitTime), c.setRateLimit(s.RateLimit), setActionsLogged(s.ActionsLogged)}
	if s.Enabled <= 1 { // 2 is locked until reboot: nothing to restore
		errs = append(errs, c.setEnabled(s.Enabled == 1))
	}
	return errors.Join(errs...)
}

// releaseSnapshot restores the snapshot as exclusive.json has it now
// (adoptRestored may have changed it since it was taken) and removes it.
func releaseSnapshot(snap kernelSnapshot) error {
	unlock, err := lockTuningFile()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := readJSON(stateFile("exclusive.json"), &snap); err != nil {
		return err
	}
	if err := restoreKernel(snap); err != nil {
		return err
	}
	if err := os.Remove(stateFile("exclusive.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// adoptRestored hands what the last holder of the tuning restored to
// exclusive.json when its snapshot was taken while the tuning was held:
// the snapshot's tuned values belonged to holds that are gone now, and
// restoring them on release left the kernel tuned with no holder, for
// the next run to save as the values to restore. The caller holds
// tuning.lock.
func adoptRestored(set func(*kernelSnapshot)) error {
	var snap kernelSnapshot
	found, err := readJSON(stateFile("exclusive.json"), &snap)
	if err != nil || !found || !snap.HeldTuning {
		return err
	}
	set(&snap)
	return writeJSON(stateFile("exclusive.json"), snap)
}

// recoverExclusive restores a snapshot left by an ExclusiveKernel holder
// that died without releasing. The caller holds runs.lock, so that holder
// is gone.
func recoverExclusive() error {
	if _, err := os.Stat(stateFile("exclusive.json")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	// Several processes can take runs.lock shared at once and find the
	// file; under tuning.lock only the first restores, before any of them
	// tunes, so a late restore never undoes a run's tuning.
	unlock, err := lockTuningFile()
	if err != nil {
		return err
	}
	defer unlock()
	var snap kernelSnapshot
	found, err := readJSON(stateFile("exclusive.json"), &snap)
	if err != nil || !found {
		return err
	}
	// The crashed process's holds of the run tuning are recovered in the
	// reverse order of taking: those taken inside the exclusive hold
	// before its snapshot is restored, those it took before after it.
	// (Always snapshot first, then tuning, left the values a test had
	// forced before its own run tuned, e.g. backlog_wait_time=0.)
	err = withTuningState(func(st *tuningState, c *control) error {
		// The owner's holds are gone with its runs.lock (see Owner).
		if !snap.HeldTuning {
			if err := recoverTuning(st, c, snap.Owner); err != nil {
				return err
			}
		}
		if err := restoreKernel(snap); err != nil {
			return fmt.Errorf("restore kernel settings left by a crashed test: %w", err)
		}
		if snap.HeldTuning {
			return recoverTuning(st, c, snap.Owner)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.Remove(stateFile("exclusive.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
