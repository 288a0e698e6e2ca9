package auditctl

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/sysgate/sysgate/internal/kernel"
)

// procState is this process's share of the machine-wide locks.
var procState struct {
	mu         sync.Mutex
	tuners     int      // AcquireTuning holds in this process
	runsLock   *os.File // open /run/sysgate/runs.lock while any hold exists
	shared     int      // shared holds on runs.lock (one per tuning holder)
	exclusive  bool
	intentLock *os.File // intent.lock, held exclusively with exclusive
}

// exclusiveMu serialises ExclusiveKernel users inside one process.
var exclusiveMu sync.Mutex

// lockRuns takes (or shares) this process's hold on runs.lock.
func lockRuns(exclusive bool) error {
	procState.mu.Lock()
	defer procState.mu.Unlock()
	fresh := procState.runsLock == nil
	if fresh {
		f, err := openLock("runs.lock")
		if err != nil {
			return err
		}
		procState.runsLock = f
	}
	how := -1
	switch {
	case exclusive:
		how = kernel.LockExclusive
	case fresh:
		how = kernel.LockShared
	}
	if exclusive && !fresh {
		// Drop this process's shared hold first: waiting for intent.lock
		// while holding runs.lock would deadlock against another process
		// that holds intent.lock and waits for runs.lock.
		if err := kernel.Flock(procState.runsLock, kernel.LockUnlock); err != nil {
			return err
		}
	}
	if how >= 0 {
		err := withIntent(exclusive, func() error { return kernel.Flock(procState.runsLock, how) })
		if err != nil {
			if fresh {
				procState.runsLock.Close()
				procState.runsLock = nil
			} else if procState.shared > 0 {
				err = errors.Join(err, kernel.Flock(procState.runsLock, kernel.LockShared))
			}
			return fmt.Errorf("lock %s: %w", stateFile("runs.lock"), err)
		}
		if err := recoverExclusive(); err != nil {
			return err
		}
	}
	if exclusive {
		procState.exclusive = true
	} else {
		procState.shared++
	}
	return nil
}

// withIntent makes runs.lock writer-preferring: flock has no fairness, so
// a steady overlap of shared holders could starve ExclusiveKernel. A
// would-be exclusive holder takes intent.lock exclusively (and keeps it
// until release); new shared holders pass through intent.lock shared and
// so queue behind it.
//
// A would-be exclusive holder gives intent.lock back after intentHold
// without runs.lock, for intentBackoff: a shared holder may be waiting on
// a process of its own that needs a shared hold too (a test that holds
// the tuning while the sysgate it starts runs), and that process queues
// at intent.lock. Holding intent.lock until runs.lock came free would
// then wait forever.
func withIntent(exclusive bool, lock func() error) error {
	if exclusive {
		return exclusiveIntent()
	}
	f, err := openLock("intent.lock")
	if err != nil {
		return err
	}
	if err := kernel.Flock(f, kernel.LockShared); err != nil {
		f.Close()
		return err
	}
	return errors.Join(lock(), f.Close())
}

const (
	intentHold    = 2 * time.Second
	intentBackoff = 50 * time.Millisecond
	intentPoll    = 2 * time.Millisecond
)

// exclusiveIntent takes intent.lock and then runs.lock exclusively,
// keeping intent.lock until release (see withIntent).
func exclusiveIntent() error {
	for {
		f, err := openLock("intent.lock")
		if err != nil {
			return err
		}
		if err := kernel.Flock(f, kernel.LockExclusive); err != nil {
			f.Close()
			return err
		}
		for deadline := time.Now().Add(intentHold); ; {
			ok, err := kernel.TryFlock(procState.runsLock, kernel.LockExclusive)
			if err != nil {
				return errors.Join(err, f.Close())
			}
			if ok {
				wait, err := upgraderAhead()
				if err != nil {
					return errors.Join(err, kernel.Flock(procState.runsLock, kernel.LockUnlock), f.Close())
				}
				if !wait {
					procState.intentLock = f
					return nil
				}
				if err := kernel.Flock(procState.runsLock, kernel.LockUnlock); err != nil {
					return errors.Join(err, f.Close())
				}
				break
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(intentPoll)
		}
		if err := f.Close(); err != nil {
			return err
		}
		time.Sleep(intentBackoff)
	}
}

// upgraderAhead tells a process that just took runs.lock exclusively
// to give it back: another live process holds the run tuning without
// holding runs.lock, which happens only while it upgrades to exclusive
// (lockRuns drops its shared hold first). Taking the kernel from under
// it would let a test force faults, or replace tuning.json, beside that
// process's runs. Holders go in the order they took the tuning, and a
// process without a hold goes after all of them, so two upgraders never
// wait for each other.
func upgraderAhead() (bool, error) {
	unlock, err := lockTuningFile()
	if err != nil {
		return false, err
	}
	defer unlock()
	var st tuningState
	if _, err := readJSON(stateFile("tuning.json"), &st); err != nil {
		return false, err
	}
	me, err := self()
	if err != nil {
		return false, err
	}
	ahead := st.Holders
	if i := slices.Index(st.Holders, me); i >= 0 {
		ahead = st.Holders[:i]
	}
	return slices.ContainsFunc(ahead, holder.alive), nil
}

func unlockRuns(exclusive bool) error {
	procState.mu.Lock()
	defer procState.mu.Unlock()
	if exclusive {
		procState.exclusive = false
		if f := procState.intentLock; f != nil {
			procState.intentLock = nil
			defer f.Close()
		}
	} else {
		procState.shared--
	}
	f := procState.runsLock
	switch {
	case procState.exclusive:
		return nil
	case procState.shared > 0:
		if exclusive {
			return kernel.Flock(f, kernel.LockShared)
		}
		return nil
	}
	procState.runsLock = nil
	return errors.Join(kernel.Flock(f, kernel.LockUnlock), f.Close())
}
