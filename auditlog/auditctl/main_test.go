package auditctl

import (
	"fmt"
	"os"
	"testing"
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
// after forcing a dropping backlog (16/0) and then holding the run
// tuning, which saves the forced values. It prints what the settings
// settle to before it forces anything.
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
	if err := forceBacklog(16, 0); err != nil {
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
