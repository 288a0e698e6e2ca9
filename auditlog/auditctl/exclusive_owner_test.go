package auditctl

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
)

// A crashed ExclusiveKernel holder that took the run tuning inside its
// hold is recovered in one go, even while its process still looks alive:
// its locks go when it closes its files on the way out, before it is a
// zombie. Before, the next locker restored the exclusive snapshot, kept
// the "live" tuning hold, and whoever found it dead later restored the
// values the holder had forced (65000/2 was left on the machine when two
// processes ran this package's tests at once).
func TestRecoverExclusiveTakesItsOwnersTuningAsGone(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t)
	var snap kernelSnapshot
	if found, err := readJSON(stateFile("exclusive.json"), &snap); err != nil || !found {
		t.Fatalf("exclusive.json: found %v, %v", found, err)
	}
	// The crashed holder, still alive to /proc.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	st, err := kernel.ReadStat(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	owner := holder{PID: sleeper.Process.Pid, Start: st.StartTicks}
	t.Cleanup(func() { dropHolder(t, owner) }) // whatever the code under test left

	// What crashForcedThenTuned leaves: a snapshot, a forced backlog saved
	// by the tuning it then took, and the tuned values.
	snap.Owner = owner
	if err := writeJSON(stateFile("exclusive.json"), snap); err != nil {
		t.Fatal(err)
	}
	if err := forceBacklog(65000, 2); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(stateFile("tuning.json"), tuningState{Saved: savedBacklog{65000, 2}, Holders: []holder{owner}}); err != nil {
		t.Fatal(err)
	}
	if err := forceBacklog(TunedBacklogLimit, TunedBacklogWaitTime); err != nil {
		t.Fatal(err)
	}

	if err := recoverExclusive(); err != nil {
		t.Fatal(err)
	}
	var left tuningState
	if found, err := readJSON(stateFile("tuning.json"), &left); err != nil || (found && slices.Contains(left.Holders, owner)) {
		t.Errorf("tuning.json still lists the crashed exclusive holder %+v (%v): its forced values would be restored later", left, err)
	}
	if got, want := backlogOf(t), (savedBacklog{snap.BacklogLimit, snap.BacklogWaitTime}); got != want {
		t.Errorf("backlog after recovery %+v, want the snapshot's %+v", got, want)
	}
}

// dropHolder removes h from tuning.json (the file too when nothing is
// held any more) without restoring anything: the test's exclusive hold
// restores its snapshot.
func dropHolder(t *testing.T, h holder) {
	t.Helper()
	unlock, err := lockTuningFile()
	if err != nil {
		t.Error(err)
		return
	}
	defer unlock()
	var st tuningState
	if found, err := readJSON(stateFile("tuning.json"), &st); err != nil || !found {
		return
	}
	st.Holders = slices.DeleteFunc(st.Holders, func(x holder) bool { return x == h })
	if err := persistTuning(&st); err != nil {
		t.Error(err)
	}
}
