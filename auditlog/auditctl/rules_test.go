package auditctl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/elastic/go-libaudit/v2/rule"
	"github.com/elastic/go-libaudit/v2/rule/flags"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
)

func buildRule(t *testing.T, text string) []byte {
	t.Helper()
	r, err := flags.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	w, err := rule.Build(r)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// foreignRule stands for a rule of auditd or another tool: it must
// survive everything sysgate does.
func foreignRule(t *testing.T) []byte {
	t.Helper()
	w := buildRule(t, "-a always,exit -F arch=b64 -S mknodat -F auid=2147483000 -k not-sysgate")
	c, err := dialControl()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.client.AddRule(w); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := dialControl()
		if err == nil {
			err = c.deleteRule(w)
			c.Close()
		}
		if err != nil {
			t.Error(err)
		}
	})
	return w
}

func hasRule(rules [][]byte, w []byte) bool {
	return slices.ContainsFunc(rules, func(r []byte) bool { return bytes.Equal(r, w) })
}

func TestAddRulesEnablesAndRemovesOnlyItsOwn(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t) // no other run may hold enabled meanwhile
	foreign := foreignRule(t)
	before, err := ListRules()
	if err != nil {
		t.Fatal(err)
	}
	st0, err := ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	ours := buildRule(t, fmt.Sprintf("-a always,exit -F arch=b64 -S openat -F auid=%d -F success=1 -k sysgate-test", 2147483001))
	release, err := AddRules([][]byte{ours})
	if err != nil {
		t.Fatal(err)
	}
	during, err := ListRules()
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(during, ours) || !hasRule(during, foreign) {
		t.Errorf("while held: ours listed %v, foreign listed %v", hasRule(during, ours), hasRule(during, foreign))
	}
	if st, _ := ReadStatus(); st.Enabled != 1 {
		t.Errorf("enabled=%d while rules are held, want 1", st.Enabled)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	after, err := ListRules()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(before, after, bytes.Equal) {
		t.Errorf("rules after release differ: %d before, %d after", len(before), len(after))
	}
	if st, _ := ReadStatus(); st.Enabled != st0.Enabled {
		t.Errorf("enabled=%d after release, want %d", st.Enabled, st0.Enabled)
	}
}

func TestAddRulesRefusesADuplicate(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t)
	ours := buildRule(t, "-a always,exit -F arch=b64 -S openat -F auid=2147483002 -F success=1 -k sysgate-test-dup")
	release, err := AddRules([][]byte{ours})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	}()
	if rel2, err := AddRules([][]byte{ours}); !errors.Is(err, ErrRuleExists) {
		if rel2 != nil {
			rel2()
		}
		t.Fatalf("second add: %v, want ErrRuleExists", err)
	}
}

// TestRecoverOwnerTrustsTheWatchdog: the watchdog knows its owner is dead
// while /proc may still list it (exiting, or a zombie not yet reaped):
// RecoverOwner removes its rules and its holds, restoring the settings.
func TestRecoverOwnerTrustsTheWatchdog(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t)
	st0, err := ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	stat, err := kernel.ReadStat(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	owner := holder{PID: sleeper.Process.Pid, Start: stat.StartTicks}
	ours := buildRule(t, "-a always,exit -F arch=b64 -S openat -F auid=2147483003 -F success=1 -k sysgate-test-owner")
	state := tuningState{Saved: savedBacklog{st0.BacklogLimit, st0.BacklogWaitTime}, Holders: []holder{owner},
		Rules: &ruleHolds{SavedEnabled: st0.Enabled, Holders: []holder{owner}}}
	plantState(t, state)
	path := stateFile("rules-test-owner.json")
	if err := addRuleFile(path, owner, [][]byte{ours}); err != nil {
		t.Fatal(err)
	}
	if err := forceBacklog(TunedBacklogLimit, TunedBacklogWaitTime); err != nil {
		t.Fatal(err)
	}
	if err := forceEnabled(true); err != nil {
		t.Fatal(err)
	}
	if err := RecoverOwner(Owner(owner)); err != nil {
		t.Fatal(err)
	}
	rules, err := ListRules()
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(rules, ours) {
		t.Error("the owner's rule survived RecoverOwner")
	}
	st, _ := ReadStatus()
	if st.Enabled != st0.Enabled || st.BacklogLimit != st0.BacklogLimit || st.BacklogWaitTime != st0.BacklogWaitTime {
		t.Errorf("after RecoverOwner %+v, want %+v", st, st0)
	}
	for _, f := range []string{path, stateFile("tuning.json")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind", f)
		}
	}
}

// TestNextRunRemovesADeadOwnersRules: without a watchdog (it died too),
// the next AcquireTuning on the machine removes the rules of an owner
// that no longer exists and restores enabled.
func TestNextRunRemovesADeadOwnersRules(t *testing.T) {
	testutil.RequireAudit(t)
	holdExclusive(t)
	st0, err := ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	owner := holder{PID: dead.Process.Pid, Start: 1}
	ours := buildRule(t, "-a always,exit -F arch=b64 -S openat -F auid=2147483004 -F success=1 -k sysgate-test-dead")
	plantState(t, tuningState{Rules: &ruleHolds{SavedEnabled: st0.Enabled, Holders: []holder{owner}}})
	if err := addRuleFile(stateFile("rules-test-dead.json"), owner, [][]byte{ours}); err != nil {
		t.Fatal(err)
	}
	if err := forceEnabled(true); err != nil {
		t.Fatal(err)
	}
	release, err := AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := ListRules()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := ReadStatus()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if hasRule(rules, ours) {
		t.Error("the dead owner's rule survived the next AcquireTuning")
	}
	if st.Enabled != st0.Enabled {
		t.Errorf("enabled=%d after recovery, want %d", st.Enabled, st0.Enabled)
	}
}
