package auditctl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/elastic/go-libaudit/v2/rule"
	"github.com/elastic/go-libaudit/v2/rule/flags"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl/internal/faulthook"
)

// The test binary doubles as a crashing ExclusiveKernel holder: with
// childEnv set, TestMain runs crashHoldingExclusive instead of the tests.
const childEnv = "SYSGATE_AUDITCTL_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "crash-exclusive":
		crashHoldingExclusive()
	case "crash-exclusive-then-tuning":
		crashForcedThenTuned()
	case "stop-at":
		runStoppingAt(Stage(os.Getenv(childEnv+"_STAGE")), os.Getenv(childEnv+"_AUID"))
	case "tune-then-exclusive":
		tuneThenExclusive()
	case "exclusive-report":
		exclusiveReport()
	case "lock-runs-exclusive", "lock-runs-shared":
		lockRunsOnce(os.Getenv(childEnv) == "lock-runs-exclusive")
	}
	// The leak check (auditctltest.RunChecked, which this package cannot
	// import): every setting must settle where it was.
	before, orphans, err := Settled()
	code := m.Run()
	if err == nil {
		if err := LeftBehind(before, orphans); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL leak check:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// crashForcedThenTuned is a fault test that dies holding ExclusiveKernel
// after forcing a backlog (65000/2) and then holding the run tuning,
// which saves the forced values. It prints what the settings settle to
// before it forces anything. The forced values are harmless ones: a
// sysgate of the old recovery order elsewhere on the machine may recover
// first and leave them (seen with 16/0, a dropping backlog, while other
// worktrees ran the old code).
func crashForcedThenTuned() {
	if _, err := exclusiveKernel(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	s, _, err := Settled()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Printf("%d %d\n", s.BacklogLimit, s.BacklogWaitTime)
	if err := forceBacklog(65000, 2); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	if _, err := AcquireTuning(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// crashHoldingExclusive takes ExclusiveKernel, changes the backlog and
// dies without releasing: the next locker must restore the settings.
func crashHoldingExclusive() {
	if _, err := exclusiveKernel(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	var snap kernelSnapshot
	found, err := readJSON(stateFile("exclusive.json"), &snap)
	if err != nil || !found {
		fmt.Fprintln(os.Stderr, "child: exclusive.json found:", found, err)
		os.Exit(2)
	}
	fmt.Printf("%d %d\n", snap.BacklogLimit, snap.BacklogWaitTime)
	if err := forceBacklog(1234, 7); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// lockRunsOnce takes runs.lock (exclusively or shared, as a run does),
// says so on stdout and exits, releasing it.
func lockRunsOnce(exclusive bool) {
	if err := lockRuns(exclusive); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println("locked")
	os.Exit(0)
}

// holdExclusive takes ExclusiveKernel for the test; its release restores
// the kernel settings the test changes.
func holdExclusive(t *testing.T) {
	t.Helper()
	release, err := exclusiveKernel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := release(); err != nil {
			t.Errorf("release exclusive kernel: %v", err)
		}
	})
}

// runStoppingAt goes through every stage of a run's kernel settings
// (tune, add a rule keyed sysgate-AUID, delete it, leave) and stops at
// stop, saying "stopped" on stdout, to be killed there. It takes no
// runs.lock: the parent test holds it exclusively.
func runStoppingAt(stop Stage, auid string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	faulthook.Stage = func(s string) {
		if Stage(s) == stop {
			fmt.Println("stopped")
			for {
				_ = unix.Pause()
			}
		}
	}
	r, err := flags.Parse("-a always,exit -F arch=b64 -S openat -F auid=" + auid + " -F success=1 -k sysgate-" + auid)
	if err != nil {
		fail(err)
	}
	wire, err := rule.Build(r)
	if err != nil {
		fail(err)
	}
	if err := withTuningLock(enterTuning); err != nil {
		fail(err)
	}
	release, err := AddRules([][]byte{wire})
	if err != nil {
		fail(err)
	}
	if err := release(); err != nil {
		fail(err)
	}
	if err := withTuningLock(leaveTuning); err != nil {
		fail(err)
	}
	fmt.Println("finished")
	os.Exit(0)
}

// plantState writes tuning.json as a crashed holder left it, for a test
// that holds the runs lock exclusively. It refuses to replace the live
// hold of another process (one between its shared and its exclusive
// hold of runs.lock, where flock keeps neither): replaced, that hold was
// gone, and its release restored zeros (backlog_limit=0
// backlog_wait_time=0).
func plantState(t *testing.T, st tuningState) {
	t.Helper()
	unlock, err := lockTuningFile()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var cur tuningState
	if _, err := readJSON(stateFile("tuning.json"), &cur); err != nil {
		t.Fatal(err)
	}
	live := slices.ContainsFunc(cur.Holders, holder.alive)
	if cur.Rules != nil {
		live = live || slices.ContainsFunc(cur.Rules.Holders, holder.alive)
	}
	if live {
		t.Fatalf("%s has live holders while this test holds runs.lock exclusively (%+v): planting a crashed holder would replace theirs", stateFile("tuning.json"), cur)
	}
	if err := writeJSON(stateFile("tuning.json"), st); err != nil {
		t.Fatal(err)
	}
}

// tuneThenExclusive holds the run tuning, says "tuned", upgrades to
// ExclusiveKernel, says "exclusive" and keeps both until stdin closes.
func tuneThenExclusive() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	leave, err := AcquireTuning()
	if err != nil {
		fail(err)
	}
	fmt.Println("tuned")
	release, err := exclusiveKernel()
	if err != nil {
		fail(err)
	}
	fmt.Println("exclusive")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := errors.Join(release(), leave()); err != nil {
		fail(err)
	}
	os.Exit(0)
}

// exclusiveReport takes ExclusiveKernel and prints the live tuning
// holders it finds, "holders: PID ...", then releases.
func exclusiveReport() {
	release, err := exclusiveKernel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	var st tuningState
	_, err = readJSON(stateFile("tuning.json"), &st)
	fmt.Print("holders:")
	for _, h := range st.Holders {
		if h.alive() {
			fmt.Print(" ", h.PID)
		}
	}
	fmt.Println()
	if err := errors.Join(err, release()); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}
