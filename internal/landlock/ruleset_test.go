package landlock

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// requireABI skips (or under CI fails) below the given Landlock ABI.
func requireABI(t *testing.T, min int) int {
	t.Helper()
	abi, err := ABI()
	if err != nil || abi < min {
		testutil.RequireFile(t, "/sys/kernel/security/landlock", "Landlock disabled or missing")
		t.Fatalf("landlock ABI %d (err %v), need %d", abi, err, min)
	}
	return abi
}

func TestABIIsProbedOnce(t *testing.T) {
	a, errA := ABI()
	b, errB := ABI()
	if a != b || errA != errB {
		t.Fatalf("ABI() = %d, %v then %d, %v", a, errA, b, errB)
	}
	if errA == nil && a < 1 {
		t.Fatalf("ABI() = %d without error", a)
	}
}

// tree makes dirs ro (read), rw (read, write, delete), rw2 (write,
// delete) and out (no rule), each holding one file f.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"ro", "rw", "rw2", "out"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "f"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func treeRules(dir string) []PathRule {
	return []PathRule{
		{Path: filepath.Join(dir, "ro"), Read: true},
		{Path: filepath.Join(dir, "rw"), Read: true, Write: true, Delete: true},
		{Path: filepath.Join(dir, "rw2"), Write: true, Delete: true},
	}
}

func build(t *testing.T, abi int, rules []PathRule) (*Ruleset, []Adjustment) {
	t.Helper()
	rs, adj, err := NewRuleset(abi, rules)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	return rs, adj
}

func expect(t *testing.T, got map[string]string, want map[string]string) {
	t.Helper()
	for op, w := range want {
		if got[op] != w {
			t.Errorf("%s: got %q, want %q", op, got[op], w)
		}
	}
}

func TestRulesetAllowsAndDenies(t *testing.T) {
	abi := requireABI(t, 3)
	d := tree(t)
	rs, _ := build(t, abi, treeRules(d))
	p := func(s string) string { return filepath.Join(d, s) }
	// A link planted in a writable tree: Landlock checks the file the
	// kernel resolved, not the name.
	if err := os.Symlink(p("out/f"), p("rw/escape")); err != nil {
		t.Fatal(err)
	}
	got := inChild(t, rs, 0, "write "+p("rw/escape"), "read "+p("rw/escape"), "link "+p("out/f")+" "+p("rw/hard"),
		"read "+p("ro/f"), "read "+p("rw/f"), "read "+p("out/f"),
		"write "+p("ro/f"), "write "+p("ro/new"), "write "+p("rw/f"), "write "+p("rw/new"),
		"write "+p("out/new"), "truncate "+p("ro/f"), "unlink "+p("ro/f"), "mkdir "+p("rw/sub"),
		"rename "+p("rw/f")+" "+p("rw2/moved"), "link "+p("rw2/f")+" "+p("rw/linked"), "link "+p("rw/new")+" "+p("rw2/linked"),
		"rename "+p("rw/new")+" "+p("ro/stolen"), "link "+p("ro/f")+" "+p("rw/ro-link"),
		"unlink "+p("rw2/f"))
	expect(t, got, map[string]string{
		"read " + p("ro/f"):                          "ok",
		"read " + p("rw/f"):                          "ok",
		"read " + p("out/f"):                         "EACCES",
		"write " + p("ro/f"):                         "EACCES",
		"write " + p("ro/new"):                       "EACCES",
		"write " + p("rw/f"):                         "ok",
		"write " + p("rw/new"):                       "ok",
		"write " + p("out/new"):                      "EACCES",
		"truncate " + p("ro/f"):                      "EACCES",
		"unlink " + p("ro/f"):                        "EACCES",
		"mkdir " + p("rw/sub"):                       "ok",
		"rename " + p("rw/f") + " " + p("rw2/moved"): "ok",
		// rw2 has no read right, rw has: linking the file into rw
		// would let the agent read it, so Landlock refuses.
		"link " + p("rw2/f") + " " + p("rw/linked"): "EXDEV",
		// Towards fewer rights is fine.
		"link " + p("rw/new") + " " + p("rw2/linked"): "ok",
		// Into a read-only tree: no make right there.
		"rename " + p("rw/new") + " " + p("ro/stolen"): "EACCES",
		// A link must not give a file more rights than it has: rw would
		// make the read-only file writable.
		"link " + p("ro/f") + " " + p("rw/ro-link"): "EXDEV",
		"unlink " + p("rw2/f"):                      "ok",
	})
}
