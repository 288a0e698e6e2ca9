package landlock

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Landlock needs an open file per rule: a missing path is skipped, but a
// write rule whose directory exists lets the agent create it there.
func TestRulesetMissingPaths(t *testing.T) {
	abi := requireABI(t, 3)
	d := t.TempDir()
	ws := filepath.Join(d, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	out, gone, deep := filepath.Join(ws, "out"), filepath.Join(d, "gone"), filepath.Join(d, "no/such/dir")
	rs, adj := build(t, abi, []PathRule{
		{Path: out, Write: true},
		{Path: gone, Read: true},
		{Path: deep, Write: true},
	})
	want := []Adjustment{
		{Path: out, Granted: ws, Reason: "does not exist yet: its directory may create it"},
		{Path: gone, Reason: "does not exist"},
		{Path: deep, Reason: "neither it nor its parent exists"},
	}
	if !reflect.DeepEqual(adj, want) {
		t.Errorf("adjustments\n got %v\nwant %v", adj, want)
	}
	got := inChild(t, rs, 0, "mkdir "+out, "write "+filepath.Join(out, "f"), "write "+filepath.Join(d, "f"))
	expect(t, got, map[string]string{
		"mkdir " + out:                     "ok",
		"write " + filepath.Join(out, "f"): "ok",
		"write " + filepath.Join(d, "f"):   "EACCES",
	})
}

// Delete of a file is a right on its directory; a rule on a file keeps
// only the rights a file can have.
func TestRulesetFileRule(t *testing.T) {
	abi := requireABI(t, 3)
	d := t.TempDir()
	f, other := filepath.Join(d, "f"), filepath.Join(d, "other")
	for _, p := range []string{f, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rs, adj := build(t, abi, []PathRule{{Path: f, Read: true, Write: true, Delete: true}})
	if len(adj) != 1 || adj[0].Granted != d {
		t.Errorf("adjustments %v, want delete granted on %s", adj, d)
	}
	got := inChild(t, rs, 0, "read "+f, "write "+f, "truncate "+f, "read "+other, "unlink "+f)
	expect(t, got, map[string]string{
		"read " + f: "ok", "write " + f: "ok", "truncate " + f: "ok",
		"read " + other: "EACCES", "unlink " + f: "ok",
	})
}
