package touch

import (
	"strings"
	"testing"

	"github.com/elastic/go-libaudit/v2/rule"

	"github.com/sysgate/sysgate/internal/filecalls"
	"github.com/sysgate/sysgate/internal/scmp"
)

func TestRulesPerArchAndSetScopedToAUID(t *testing.T) {
	wires, err := Rules(0x7f001234, Files|Network, Native|Compat)
	if err != nil {
		t.Fatal(err)
	}
	if len(wires) != 4 {
		t.Fatalf("got %d rules, want one per arch and set", len(wires))
	}
	for i, w := range wires {
		text, err := rule.ToCommandLine(rule.WireFormat(w), true)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(text)
		want := []string{"-F auid=2130711092", "-F key=sysgate-2130711092"}
		if i%2 == 0 {
			// Files: successful calls only.
			want = append(want, "-F success=1", "openat", "rename")
			if strings.Contains(text, "connect") {
				t.Errorf("file rule %q records connect", text)
			}
		} else {
			// Network: every outcome (EINPROGRESS, ECONNREFUSED, EACCES).
			want = append(want, "connect", "sendto", "bind")
			if strings.Contains(text, "success") || strings.Contains(text, "openat") {
				t.Errorf("network rule %q filters on success or records file calls", text)
			}
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("rule %d %q lacks %q", i, text, w)
			}
		}
	}
}

// TestFileRulesHoldTheWholeTable: every call of the one table that an
// arch has is in that arch's file rule (a name go-libaudit's table
// lacked would be left out silently).
func TestFileRulesHoldTheWholeTable(t *testing.T) {
	wires, err := Rules(0x7f001234, Files, Native|Compat)
	if err != nil {
		t.Fatal(err)
	}
	native := scmp.Native()
	compat := map[scmp.Arch]scmp.Arch{scmp.X86_64: scmp.I386, scmp.AArch64: scmp.ARM}[native]
	for i, arch := range []scmp.Arch{native, compat} {
		text, err := rule.ToCommandLine(rule.WireFormat(wires[i]), true)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]bool{}
		for _, f := range strings.Fields(text) {
			for _, name := range strings.Split(f, ",") {
				calls[name] = true
			}
		}
		for _, name := range filecalls.Names() {
			if _, ok := scmp.Number(arch, name); ok && !calls[name] {
				t.Errorf("%s: the file rule lacks %s: %s", arch, name, text)
			}
		}
		for _, name := range []string{"fchmodat2", "fchmod", "fsetxattr", "utimensat", "setxattr"} {
			if !calls[name] {
				t.Errorf("%s: the file rule lacks %s", arch, name)
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
