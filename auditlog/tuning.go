package auditlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/internal/auditnl"
)

// Kernel audit settings while a run is active. The defaults (64 records,
// a 60 s wait) freeze a logging process for exactly 60 s on this kernel;
// a wait of 0 drops records at the source.
const (
	TunedBacklogLimit    = 65536
	TunedBacklogWaitTime = 1 // jiffies
)

// StateDir holds the lock and state files shared by every sysgate process
// on the machine. A variable so tests can point it elsewhere.
var StateDir = "/run/sysgate"

func stateFile(name string) string { return filepath.Join(StateDir, name) }

// tuningState is /run/sysgate/tuning.json: the values to restore and the
// processes holding the tuning. It is written before any setting changes,
// so a holder that crashes leaves enough behind for the next one to
// restore.
type tuningState struct {
	Saved   savedBacklog `json:"saved"`
	Holders []holder     `json:"holders"`
}

type savedBacklog struct {
	BacklogLimit    uint32 `json:"backlog_limit"`
	BacklogWaitTime uint32 `json:"backlog_wait_time"`
}

// holder names a process by pid and start time, so a reused pid is not
// mistaken for a live holder.
type holder struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

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
	start, err := processStart(os.Getpid())
	return holder{PID: os.Getpid(), Start: start}, err
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
		return c.setBacklog(max(cur.BacklogLimit, TunedBacklogLimit), TunedBacklogWaitTime)
	}
	st.Holders = append(st.Holders, me)
	return writeJSON(stateFile("tuning.json"), st)
}

func leaveTuning(st *tuningState, c *control) error {
	me, _ := self()
	st.Holders = slices.DeleteFunc(st.Holders, func(h holder) bool { return h == me })
	if len(st.Holders) > 0 {
		return writeJSON(stateFile("tuning.json"), st)
	}
	return restoreTuning(st, c)
}

func restoreTuning(st *tuningState, c *control) error {
	if err := c.setBacklog(st.Saved.BacklogLimit, st.Saved.BacklogWaitTime); err != nil {
		return err
	}
	if err := os.Remove(stateFile("tuning.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	*st = tuningState{}
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
	c, err := dialControl()
	if err != nil {
		return err
	}
	defer c.Close()
	var st tuningState
	found, err := readJSON(stateFile("tuning.json"), &st)
	if err != nil {
		return err
	}
	if found {
		alive := slices.DeleteFunc(slices.Clone(st.Holders), func(h holder) bool { return !h.alive() })
		if len(alive) == 0 {
			if err := restoreTuning(&st, c); err != nil {
				return fmt.Errorf("restore audit settings left by a crashed sysgate: %w", err)
			}
		} else {
			st.Holders = alive
		}
	}
	return fn(&st, c)
}

// lockTuningFile takes tuning.lock exclusively; closing the file drops it.
func lockTuningFile() (unlock func() error, err error) {
	f, err := openLock("tuning.lock")
	if err != nil {
		return nil, err
	}
	if err := auditnl.Flock(f, auditnl.LockExclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return f.Close, nil
}

func (h holder) alive() bool {
	start, err := processStart(h.PID)
	return err == nil && start == h.Start
}

// processStart returns a process's start time in clock ticks since boot
// (field 22 of /proc/PID/stat).
func processStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("parse /proc/%d/stat: %d fields", pid, len(f))
	}
	return strconv.ParseUint(f[19], 10, 64)
}

func openLock(name string) (*os.File, error) {
	if err := os.MkdirAll(StateDir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(stateFile(name), os.O_RDWR|os.O_CREATE, 0o644)
}

func readJSON(path string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return true, nil
}

// writeJSON replaces path atomically (temp file, fsync, rename).
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
