// Package auditctltest exists for tests that force kernel audit faults
// (a backlog that drops records, audit switched off, seccomp's log action
// not logged) and for tests that must not run beside such a fault. Nothing
// outside tests should import it: these knobs change machine-wide kernel
// settings.
//
// Take ExclusiveKernel first: it waits until no run on the machine holds
// auditctl.AcquireTuning, keeps new ones waiting, snapshots the settings
// and restores them on release (or, after a crash, the next process that
// takes the runs lock does). The setters need root (CAP_AUDIT_CONTROL,
// CAP_SYS_ADMIN for actions_logged).
package auditctltest

import (
	"fmt"
	"os"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl" // also fills faulthook in its init
	"github.com/sysgate/sysgate/auditlog/auditctl/internal/faulthook"
)

// ExclusiveKernel takes the machine's runs lock exclusively: it waits until
// no run on the machine holds auditctl.AcquireTuning, and keeps new ones
// waiting, so a test may force global faults without disturbing other
// processes' runs. The audit backlog settings, rate limit, enabled flag
// and actions_logged are snapshotted first and restored by release. Only
// one holder per process at a time; runs of this process that hold
// AcquireTuning are not excluded (they are the test's own business).
func ExclusiveKernel() (release func() error, err error) { return faulthook.ExclusiveKernel() }

// SetBacklog sets the audit backlog_limit and backlog_wait_time (jiffies):
// a small limit with a wait of 0 drops records at the source.
func SetBacklog(limit, wait uint32) error { return faulthook.SetBacklog(limit, wait) }

// SetEnabled turns audit on or off.
func SetEnabled(on bool) error { return faulthook.SetEnabled(on) }

// SetActionsLogged writes kernel.seccomp.actions_logged; without "log",
// SECCOMP_RET_LOG produces no records.
func SetActionsLogged(v string) error { return faulthook.SetActionsLogged(v) }

// HoldExclusive takes ExclusiveKernel for the rest of the test; its
// release, at cleanup, restores the settings the test changes.
func HoldExclusive(t testing.TB) {
	t.Helper()
	release, err := ExclusiveKernel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := release(); err != nil {
			t.Errorf("release exclusive kernel: %v", err)
		}
	})
}

// HoldTuning holds auditctl.AcquireTuning for the rest of the test, as a
// run does, so no fault-forcing test elsewhere (HoldExclusive) changes the
// kernel's audit settings meanwhile.
func HoldTuning(t testing.TB) {
	t.Helper()
	release, err := auditctl.AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	})
}

// OnStage calls fn at each auditctl.Stage this process reaches, in the
// goroutine that reaches it (a fault build of sysgate stops there to be
// killed). Set it before anything holds the tuning.
func OnStage(fn func(auditctl.Stage)) {
	faulthook.Stage = func(s string) { fn(auditctl.Stage(s)) }
}

// RunChecked runs a test package (TestMain's m.Run) and then the leak
// check: the kernel settings sysgate changes must settle where they were
// before (auditctl.Settled, which counts what other processes' live
// holds will give back, so packages running beside it cannot make it
// fail). Without root or audit it only runs the tests.
func RunChecked(m *testing.M) int {
	before, orphans, err := auditctl.Settled()
	if err != nil {
		return m.Run()
	}
	code := m.Run()
	if err := auditctl.LeftBehind(before, orphans); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL leak check:", err)
		return 1
	}
	return code
}
