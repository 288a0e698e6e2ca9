package auditctl

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/elastic/go-libaudit/v2/rule"
	"github.com/elastic/go-libaudit/v2/rule/flags"

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
