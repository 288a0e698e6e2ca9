package landlock

import (
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestHandledAccessGrowsWithABI(t *testing.T) {
	if HandledAccess(0) != 0 {
		t.Errorf("ABI 0 handles %#x", HandledAccess(0))
	}
	if HandledAccess(1)&unix.LANDLOCK_ACCESS_FS_REFER != 0 {
		t.Error("ABI 1 handles REFER")
	}
	if HandledAccess(2)&unix.LANDLOCK_ACCESS_FS_TRUNCATE != 0 {
		t.Error("ABI 2 handles TRUNCATE")
	}
	if HandledAccess(7) != HandledAccess(3) || HandledAccess(7)&unix.LANDLOCK_ACCESS_FS_IOCTL_DEV != 0 {
		t.Errorf("ABI 7 handles %#x, want the ABI 3 set %#x", HandledAccess(7), HandledAccess(3))
	}
	if LogFlags(6) != 0 || LogFlags(7) != RestrictLogNewExecOn|RestrictLogSameExecOff {
		t.Errorf("LogFlags(6) = %#x, LogFlags(7) = %#x", LogFlags(6), LogFlags(7))
	}
	if _, _, err := NewRuleset(0, nil); !errors.Is(err, unix.EINVAL) {
		t.Errorf("NewRuleset(ABI 0) = %v, want EINVAL", err)
	}
}

// A ruleset built for an older ABI enforces what that kernel would: ABI 2
// does not handle truncate, so truncating a read-only file is allowed; ABI
// 1 cannot grant REFER, so every cross-directory rename is refused with
// EXDEV, even between two writable trees.
func TestRulesetOlderABI(t *testing.T) {
	requireABI(t, 3)
	cases := []struct {
		abi                    int
		truncateRO, renameRWRW string
	}{
		{abi: 1, truncateRO: "ok", renameRWRW: "EXDEV"},
		{abi: 2, truncateRO: "ok", renameRWRW: "ok"},
		{abi: 3, truncateRO: "EACCES", renameRWRW: "ok"},
	}
	for _, c := range cases {
		d := tree(t)
		rs, _ := build(t, c.abi, treeRules(d))
		p := func(s string) string { return filepath.Join(d, s) }
		truncate := "truncate " + p("ro/f")
		rename := "rename " + p("rw/f") + " " + p("rw2/moved")
		got := inChild(t, rs, 0, truncate, rename, "read "+p("out/f"))
		if got[truncate] != c.truncateRO || got[rename] != c.renameRWRW || got["read "+p("out/f")] != "EACCES" {
			t.Errorf("ABI %d: %v", c.abi, got)
		}
	}
}
