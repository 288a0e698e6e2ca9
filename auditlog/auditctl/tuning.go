package auditctl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/sysgate/sysgate/internal/kernel"
)

// Kernel audit settings while a run is active. The defaults (64 records,
// a 60 s wait) freeze a logging process for exactly 60 s on this kernel;
// a wait of 0 drops records at the source. The queue peaked at 11,613 to
// 23,576 records during 100k-syscall runs here (kauditd delivers to every
// multicast listener in turn), so 8192 dropped records under load.
const (
	TunedBacklogLimit    = 65536
	TunedBacklogWaitTime = 1 // jiffies
)

// tuningState is /run/sysgate/tuning.json: the values to restore and the
// processes holding the tuning. It is written before any setting changes,
// so a holder that crashes leaves enough behind for the next one to
// restore.
type tuningState struct {
	Saved   savedBacklog `json:"saved"`
	Holders []holder     `json:"holders"`
	// Rules is the enabled flag to restore and the processes holding
	// audit syscall rules (AddRules); nil while none does.
	Rules *ruleHolds `json:"rules,omitempty"`
}

type savedBacklog struct {
	BacklogLimit    uint32 `json:"backlog_limit"`
	BacklogWaitTime uint32 `json:"backlog_wait_time"`
}

// holder names a process by pid and start time (clock ticks since boot),
// so a reused pid is not mistaken for a live holder.
type holder struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// AcquireTuning raises backlog_limit to at least TunedBacklogLimit and sets
// backlog_wait_time to TunedBacklogWaitTime for as long as any holder on
// the machine keeps it, and takes a shared hold on runs.lock so no
// fault-forcing test (ExclusiveKernel) runs meanwhile. The first holder
// saves the previous values; release by the last holder restores them; a
// crashed holder's values are restored by the next AcquireTuning.
func AcquireTuning() (release func() error, err error) {
	if err := lockRuns(false); err != nil {
		return nil, err
	}
	procState.mu.Lock()
	first := procState.tuners == 0
	procState.tuners++
	procState.mu.Unlock()
	if first {
		if err := withTuningLock(enterTuning); err != nil {
			procState.mu.Lock()
			procState.tuners--
			procState.mu.Unlock()
			return nil, errors.Join(err, unlockRuns(false))
		}
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			procState.mu.Lock()
			procState.tuners--
			last := procState.tuners == 0
			procState.mu.Unlock()
			if last {
				err = withTuningLock(leaveTuning)
			}
			err = errors.Join(err, unlockRuns(false))
		})
		return err
	}, nil
}

func self() (holder, error) {
	st, err := kernel.ReadStat(os.Getpid())
	return holder{PID: os.Getpid(), Start: st.StartTicks}, err
}

func enterTuning(st *tuningState, c *control) error {
	me, err := self()
	if err != nil {
		return err
	}
	if len(st.Holders) == 0 {
		cur, err := c.status()
		if err != nil {
			return err
		}
		st.Saved = savedBacklog{cur.BacklogLimit, cur.BacklogWaitTime}
		st.Holders = []holder{me}
		// Saved before anything changes: a crash from here on is recovered.
		if err := writeJSON(stateFile("tuning.json"), st); err != nil {
			return err
		}
		stage(StageTuningSaved)
		if err := c.setBacklog(max(cur.BacklogLimit, TunedBacklogLimit), TunedBacklogWaitTime); err != nil {
			return err
		}
		stage(StageTuned)
		return nil
	}
	st.Holders = append(st.Holders, me)
	if err := writeJSON(stateFile("tuning.json"), st); err != nil {
		return err
	}
	stage(StageTuningSaved)
	stage(StageTuned)
	return nil
}

// leaveTuning drops this process's hold and restores the saved values
// if it was the last. A process that is no longer listed changes
// nothing: its hold is gone (a recovery took it for dead, or the state
// file was replaced), and restoring st.Saved then would apply values
// nobody saved, zeros when the file is gone. That was how runs left
// backlog_limit=0 backlog_wait_time=0 behind.
func leaveTuning(st *tuningState, c *control) error {
	me, err := self()
	if err != nil {
		return err
	}
	if !slices.Contains(st.Holders, me) {
		return fmt.Errorf("leave the audit run tuning: pid %d is not a holder in %s (its hold was dropped by another process); backlog_limit and backlog_wait_time left as they are", me.PID, stateFile("tuning.json"))
	}
	stage(StageLeaving)
	st.Holders = slices.DeleteFunc(st.Holders, func(h holder) bool { return h == me })
	if len(st.Holders) > 0 {
		return writeJSON(stateFile("tuning.json"), st)
	}
	return restoreTuning(st, c)
}

func restoreTuning(st *tuningState, c *control) error {
	if err := c.setBacklogLimit(st.Saved.BacklogLimit); err != nil {
		return err
	}
	stage(StageRestoring) // half restored: tuning.json still lists the holders
	if err := c.setBacklogWaitTime(st.Saved.BacklogWaitTime); err != nil {
		return err
	}
	saved := st.Saved
	if err := adoptRestored(func(s *kernelSnapshot) { s.BacklogLimit, s.BacklogWaitTime = saved.BacklogLimit, saved.BacklogWaitTime }); err != nil {
		return err
	}
	st.Saved, st.Holders = savedBacklog{}, nil
	return persistTuning(st)
}

// persistTuning writes the state, or removes the file once nothing is
// held.
func persistTuning(st *tuningState) error {
	if len(st.Holders) > 0 || st.Rules != nil {
		return writeJSON(stateFile("tuning.json"), st)
	}
	if err := os.Remove(stateFile("tuning.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// withTuningLock runs fn with tuning.lock held exclusively and the state
// read from tuning.json, after dropping dead holders (and restoring the
// saved values if no live holder remains: a crash leftover).
func withTuningLock(fn func(*tuningState, *control) error) error {
	unlock, err := lockTuningFile()
	if err != nil {
		return err
	}
	defer unlock()
	return withTuningState(func(st *tuningState, c *control) error {
		if err := recoverTuning(st, c, holder{}); err != nil {
			return err
		}
		return fn(st, c)
	})
}

// withTuningState runs fn with a control connection and the state read
// from tuning.json; the caller holds tuning.lock.
func withTuningState(fn func(*tuningState, *control) error) error {
	c, err := dialControl()
	if err != nil {
		return err
	}
	defer c.Close()
	var st tuningState
	if _, err := readJSON(stateFile("tuning.json"), &st); err != nil {
		return err
	}
	return fn(&st, c)
}

// recoverTuning drops dead holders (and dead, a process known to be
// gone though /proc may still show it) from st, removes their rules and
// restores what the last of them saved. The caller holds tuning.lock.
func recoverTuning(st *tuningState, c *control, dead holder) error {
	if err := recoverRules(st, c, dead); err != nil {
		return err
	}
	if len(st.Holders) == 0 {
		return nil
	}
	n := len(st.Holders)
	st.Holders = slices.DeleteFunc(st.Holders, func(h holder) bool { return h == dead || !h.alive() })
	if len(st.Holders) == n {
		return nil
	}
	if len(st.Holders) > 0 {
		return persistTuning(st)
	}
	if err := restoreTuning(st, c); err != nil {
		return fmt.Errorf("restore audit settings left by a crashed sysgate: %w", err)
	}
	return nil
}

// lockTuningFile takes tuning.lock exclusively; closing the file drops it.
func lockTuningFile() (unlock func() error, err error) {
	f, err := openLock("tuning.lock")
	if err != nil {
		return nil, err
	}
	if err := kernel.Flock(f, kernel.LockExclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return f.Close, nil
}

// alive is false for a zombie too: it holds nothing any more.
func (h holder) alive() bool {
	st, err := kernel.ReadStat(h.PID)
	return err == nil && st.StartTicks == h.Start && st.State != 'Z' && st.State != 'X'
}

// TuningHolders describes /run/sysgate/tuning.json for `sysgate doctor`:
// the backlog settings the last holder will restore, and the holders by
// pid, alive or left behind by a crash.
type TuningHolders struct {
	SavedBacklogLimit, SavedBacklogWaitTime uint32
	Live, Dead                              []int
}

// ReadTuningHolders reads the tuning state; found is false when no run
// holds the tuning.
func ReadTuningHolders() (h TuningHolders, found bool, err error) {
	var st tuningState
	found, err = readJSON(stateFile("tuning.json"), &st)
	if err != nil || !found {
		return h, found, err
	}
	h.SavedBacklogLimit, h.SavedBacklogWaitTime = st.Saved.BacklogLimit, st.Saved.BacklogWaitTime
	for _, hd := range st.Holders {
		if hd.alive() {
			h.Live = append(h.Live, hd.PID)
		} else {
			h.Dead = append(h.Dead, hd.PID)
		}
	}
	return h, true, nil
}
