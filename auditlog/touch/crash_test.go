package touch

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elastic/go-libaudit/v2/rule"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
)

// keyedRules returns the kernel's rules that carry key.
func keyedRules(t *testing.T, key string) []string {
	t.Helper()
	rules, err := auditctl.ListRules()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rules {
		text, err := rule.ToCommandLine(rule.WireFormat(r), true)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, "key="+key) {
			out = append(out, text)
		}
	}
	return out
}

// TestSIGKILLedRunLeavesNoRule kills a process that holds rules and
// waits for its watchdog to clean up after it.
func TestSIGKILLedRunLeavesNoRule(t *testing.T) {
	testutil.RequireAudit(t)
	// Nobody else may hold enabled meanwhile, so "as before" is exact.
	auditctltest.HoldExclusive(t)
	before, err := auditctl.ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	others, err := auditctl.ListRules()
	if err != nil {
		t.Fatal(err)
	}
	auid := NewAUID()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strconv.FormatUint(uint64(auid), 10))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A failed check below must not leave the child holding its rules.
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q: %v", line, err)
	}
	wdPID, _ := strconv.Atoi(strings.TrimSpace(line))
	// Opened while the child lives: the watchdog cannot be reaped before.
	wd, err := kernel.PidfdOpen(wdPID)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(wd)
	if got := keyedRules(t, Key(auid)); len(got) != 2 {
		t.Fatalf("while the run lives: %d rules with its key, want 2 (files, network): %q", len(got), got)
	}
	if st, _ := auditctl.ReadStatus(); st.Enabled != 1 {
		t.Errorf("while the run lives: enabled=%d", st.Enabled)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// A deadline, not a sleep: the test passes as soon as the watchdog exits.
	if ready, err := kernel.WaitReady([]int{wd}, 20_000); err != nil || len(ready) == 0 {
		t.Fatalf("watchdog %d still running 20 s after its owner died (%v)", wdPID, err)
	}
	if got := keyedRules(t, Key(auid)); len(got) != 0 {
		t.Errorf("after SIGKILL: rules left behind: %q", got)
	}
	after, err := auditctl.ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	if after.Enabled != before.Enabled || after.BacklogLimit != before.BacklogLimit || after.BacklogWaitTime != before.BacklogWaitTime {
		t.Errorf("after SIGKILL: enabled=%d backlog=%d/%d, before %d %d/%d", after.Enabled, after.BacklogLimit, after.BacklogWaitTime,
			before.Enabled, before.BacklogLimit, before.BacklogWaitTime)
	}
	rest, err := auditctl.ListRules()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rest) != fmt.Sprint(others) || len(rest) != len(others) || !bytes.Equal(bytes.Join(rest, nil), bytes.Join(others, nil)) {
		t.Errorf("other rules changed: %d before, %d after", len(others), len(rest))
	}
}

// TestRemoveDismissesWatchdog: a normal Remove leaves nothing and the
// watchdog exits without recovering (the owner still holds nothing).
func TestRemoveDismissesWatchdog(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldExclusive(t)
	before, err := auditctl.ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	auid := NewAUID()
	in, err := Install(auid, Files, Native)
	if err != nil {
		t.Fatal(err)
	}
	wd := in.watchdog
	if err := in.Remove(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-in.watchdogReaped():
	case <-time.After(20 * time.Second): // a deadline, not a wait for anything
		t.Fatal("dismissed watchdog still running after 20 s")
	}
	if !wd.ProcessState.Exited() || wd.ProcessState.ExitCode() != 0 {
		t.Errorf("watchdog ended %v", wd.ProcessState)
	}
	if got := keyedRules(t, Key(auid)); len(got) != 0 {
		t.Errorf("after Remove: %q", got)
	}
	if st, _ := auditctl.ReadStatus(); st.Enabled != before.Enabled {
		t.Errorf("after Remove: enabled=%d, before %d", st.Enabled, before.Enabled)
	}
}

// TestInstallBothArches: the compat rule is accepted by the kernel too,
// and both go on Remove.
func TestInstallBothArches(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t)
	auid := NewAUID()
	in, err := Install(auid, Files|Network, Native|Compat)
	if err != nil {
		t.Fatal(err)
	}
	got := keyedRules(t, Key(auid))
	if err := in.Remove(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !strings.Contains(strings.Join(got, "\n"), "arch=b32") {
		t.Errorf("installed %q, want a files and a network rule for b64 and b32", got)
	}
	if left := keyedRules(t, Key(auid)); len(left) != 0 {
		t.Errorf("after Remove: %q", left)
	}
}
