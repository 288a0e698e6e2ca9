package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/internal/kernel"
)

// CauseAbandoned: the process belonged to a run whose harness died (e.g.
// SIGKILL) before it could end the run's tree; a later Run killed it.
const CauseAbandoned = "abandoned by a killed harness"

// A run's claim is the file <StateDir>/sessions/<ses> naming the harness
// process (pid and start time) that owns the session. A harness killed
// mid-run leaves its claim and the agent's tree behind; the next Run on
// the machine kills every tree whose owner is gone, so no unobserved agent
// keeps running.
func sessionsDir() string { return filepath.Join(auditctl.StateDir, "sessions") }

type sessionOwner struct {
	pid   int
	start time.Duration
}

func (o sessionOwner) alive() bool {
	info, err := kernel.ReadInfo(o.pid)
	return err == nil && info.Start == o.start && !info.Zombie()
}

// claimSession records this process as the owner of ses; release removes
// the claim once the run's tree is gone.
func claimSession(ses uint32) (release func(), err error) {
	me, err := kernel.ReadInfo(os.Getpid())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(sessionsDir(), 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(sessionsDir(), strconv.FormatUint(uint64(ses), 10))
	data := fmt.Sprintf("%d %d\n", me.PID, int64(me.Start))
	// Written aside and renamed: concurrent Runs read every claim, and
	// must never see a half-written one.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return nil, fmt.Errorf("claim audit session %d: %w", ses, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("claim audit session %d: %w", ses, err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// reapAbandonedRuns kills the trees of runs whose harness is gone and
// drops their claims.
func reapAbandonedRuns() error {
	entries, err := os.ReadDir(sessionsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		ses, err := strconv.ParseUint(e.Name(), 10, 32)
		if err != nil {
			continue
		}
		path := filepath.Join(sessionsDir(), e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue // released meanwhile
		}
		var owner sessionOwner
		var start int64
		if _, err := fmt.Sscan(string(data), &owner.pid, &start); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		owner.start = time.Duration(start)
		if owner.alive() {
			continue
		}
		out := killTree(uint32(ses), -1, CauseAbandoned, nil, treeOutcome{})
		if out.Err != nil {
			errs = append(errs, fmt.Errorf("kill abandoned run (audit session %d): %w", ses, out.Err))
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
