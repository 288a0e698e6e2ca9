package touch

import (
	"strings"
	"testing"

	"github.com/elastic/go-libaudit/v2/rule"
)

func TestRulesOnePerArchScopedToAUID(t *testing.T) {
	wires, err := Rules(0x7f001234, Files|Network, Native|Compat)
	if err != nil {
		t.Fatal(err)
	}
	if len(wires) != 2 {
		t.Fatalf("got %d rules, want one per arch", len(wires))
	}
	for i, w := range wires {
		text, err := rule.ToCommandLine(rule.WireFormat(w), true)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(text)
		for _, want := range []string{"-F auid=2130711092", "-F success=1", "-F key=sysgate-2130711092", "openat", "connect", "rename"} {
			if !strings.Contains(text, want) {
				t.Errorf("rule %d %q lacks %q", i, text, want)
			}
		}
	}
}

func TestRulesRejectUnsetAUID(t *testing.T) {
	for _, auid := range []uint32{0, ^uint32(0)} {
		if _, err := Rules(auid, Files, Native); err == nil {
			t.Errorf("auid %d accepted", auid)
		}
	}
	if _, err := Rules(5, 0, Native); err == nil {
		t.Error("empty set accepted")
	}
}

func TestNewAUIDInRange(t *testing.T) {
	for range 1000 {
		a := NewAUID()
		if a < auidLow || a > auidHigh {
			t.Fatalf("auid %#x outside [%#x, %#x]", a, auidLow, auidHigh)
		}
	}
}
