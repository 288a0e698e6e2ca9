package auditctl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

func backlogOf(t *testing.T) savedBacklog {
	t.Helper()
	st, err := ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	return savedBacklog{st.BacklogLimit, st.BacklogWaitTime}
}

func TestTuningNestsAndRestores(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t) // no other process's run may hold the tuning meanwhile
	before := backlogOf(t)
	rel1, err := AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	rel2, err := AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	tuned := backlogOf(t)
	if tuned.BacklogLimit < TunedBacklogLimit || tuned.BacklogWaitTime != TunedBacklogWaitTime {
		t.Errorf("tuned backlog %+v", tuned)
	}
	var st tuningState
	if found, err := readJSON(stateFile("tuning.json"), &st); err != nil || !found || st.Saved != before || len(st.Holders) != 1 {
		t.Errorf("state file %+v (found %v, %v); want saved %+v and one holder", st, found, err, before)
	}
	if err := rel1(); err != nil {
		t.Fatal(err)
	}
	if got := backlogOf(t); got != tuned {
		t.Errorf("first release restored %+v while a holder remains", got)
	}
	if err := rel2(); err != nil {
		t.Fatal(err)
	}
	if got := backlogOf(t); got != before {
		t.Errorf("after the last release %+v, want %+v", got, before)
	}
	if _, err := os.Stat(stateFile("tuning.json")); err == nil {
		t.Errorf("state file left behind")
	}
}

func TestTuningRecoversFromCrashedHolder(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t)
	before := backlogOf(t)
	// A holder that died with the tuning applied: its state file names a
	// process that no longer exists.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	plantState(t, tuningState{Saved: before, Holders: []holder{{PID: dead.Process.Pid, Start: 1}}})
	if err := forceBacklog(TunedBacklogLimit, TunedBacklogWaitTime); err != nil {
		t.Fatal(err)
	}
	h, found, err := ReadTuningHolders()
	if err != nil || !found || len(h.Live) != 0 || !slices.Equal(h.Dead, []int{dead.Process.Pid}) || h.SavedBacklogLimit != before.BacklogLimit {
		t.Errorf("doctor's view of the crashed holder: %+v (found %v, %v)", h, found, err)
	}
	release, err := AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	var st tuningState
	if _, err := readJSON(stateFile("tuning.json"), &st); err != nil || st.Saved != before {
		t.Errorf("saved %+v after recovery, want %+v (%v)", st.Saved, before, err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if got := backlogOf(t); got != before {
		t.Errorf("after recovery and release %+v, want %+v", got, before)
	}
}

func TestExclusiveKernelRecoversFromCrashedHolder(t *testing.T) {
	testutil.RequireAudit(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=crash-exclusive")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var saved savedBacklog
	if _, err := fmt.Sscan(string(out), &saved.BacklogLimit, &saved.BacklogWaitTime); err != nil {
		t.Fatalf("child said %q: %v", out, err)
	}
	holdExclusive(t) // finds the child's snapshot and restores it, unless another locker did first
	// Other test packages take runs.lock too (go test runs packages in
	// parallel): whichever locker comes first after the crash restores
	// the snapshot and removes it, and may have tuned the backlog since.
	// What must never survive is the crashed holder's own setting.
	if got := backlogOf(t); got.BacklogLimit == 1234 || got.BacklogWaitTime == 7 {
		t.Errorf("after a crashed exclusive holder %+v: its forced 1234/7 survived (snapshot %+v)", got, saved)
	}
	// exclusive.json now holds this test's own snapshot: it must be the
	// restored state, not the crashed holder's forced one.
	var mine kernelSnapshot
	if found, err := readJSON(stateFile("exclusive.json"), &mine); err != nil || !found || mine.BacklogLimit == 1234 {
		t.Errorf("snapshot under this test's hold %+v (found %v, %v): the crashed holder's setting was not restored first", mine, found, err)
	}
}

func TestCheckActionsLogged(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t) // its release restores actions_logged
	before, err := CheckActionsLogged()
	if err != nil {
		t.Fatalf("actions_logged %q: %v", before, err)
	}
	if err := setActionsLogged(strings.TrimSpace(strings.ReplaceAll(" "+before+" ", " log ", " "))); err != nil {
		t.Fatal(err)
	}
	_, err = CheckActionsLogged()
	var e *Error
	if !errors.Is(err, ErrActionNotLogged) || !errors.As(err, &e) || !strings.Contains(e.Fix, "sysctl -w kernel.seccomp.actions_logged=") || !strings.Contains(e.Fix, " log\"") {
		t.Errorf("without log: %v", err)
	}
}

// A hold that another process dropped (its recovery took this process
// for dead, or a test replaced tuning.json) must not restore on release:
// there is nothing saved to restore, and the zero values it restored
// were the backlog_limit=0 backlog_wait_time=0 users found after runs.
func TestReleaseOfADroppedHoldChangesNothing(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t)
	before := backlogOf(t)
	release, err := AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	// What a recovery that took this holder for dead does: restore the
	// saved values, drop the hold, remove the file.
	err = withTuningLock(func(st *tuningState, c *control) error {
		st.Holders = nil
		return restoreTuning(st, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = release()
	if got := backlogOf(t); got != before {
		t.Errorf("release of a dropped hold set the backlog to %+v, want %+v as the recovery left it", got, before)
	}
	if err == nil || !strings.Contains(err.Error(), "tuning.json") {
		t.Errorf("release of a dropped hold: %v, want an error naming tuning.json", err)
	}
}

// A fault test that forced a backlog, then held the tuning (which saved
// the forced values) and crashed: the next locker restores the tuning's
// saved values first and the exclusive snapshot last, so the forced
// values (65000/2 here; 16/0 in the fault suite) do not survive.
func TestCrashedExclusiveHolderWithTuningInside(t *testing.T) {
	testutil.RequireAudit(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=crash-exclusive-then-tuning")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var want savedBacklog
	if _, err := fmt.Sscan(string(out), &want.BacklogLimit, &want.BacklogWaitTime); err != nil {
		t.Fatalf("child said %q: %v", out, err)
	}
	holdExclusive(t) // recovers the child's holds, unless another locker did first
	s, _, err := Settled()
	if err != nil {
		t.Fatal(err)
	}
	if got := (savedBacklog{s.BacklogLimit, s.BacklogWaitTime}); got != want {
		t.Errorf("after the crashed holder the backlog settles at %+v, want %+v (65000/2 is what it forced)", got, want)
	}
}

// A test that holds the tuning, takes ExclusiveKernel (its snapshot has
// the tuned values) and gives the tuning back first: the release of the
// exclusive hold must put back what the tuning restored, not the tuned
// values with no holder left (the next run would save them as the
// values to restore).
func TestExclusiveReleasedAfterTheTuningItSnapshotted(t *testing.T) {
	testutil.RequireAudit(t)
	before, orphans, err := Settled()
	if err != nil {
		t.Fatal(err)
	}
	untune, err := AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	release, err := exclusiveKernel()
	if err != nil {
		t.Fatal(errors.Join(err, untune()))
	}
	var snap kernelSnapshot
	if found, err := readJSON(stateFile("exclusive.json"), &snap); err != nil || !found || !snap.HeldTuning || snap.BacklogLimit < TunedBacklogLimit {
		t.Errorf("snapshot under the tuning %+v (found %v, %v): want the tuned values, held", snap, found, err)
	}
	if err := untune(); err != nil {
		t.Error(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := LeftBehind(before, orphans); err != nil {
		t.Error(err)
	}
}
