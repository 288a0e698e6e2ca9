package baseline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

const poisonGroup = "groups:\n  poison:\n    reason: planted\n    syscalls:\n      x86_64: [connect, socket]\n"

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// An agent appends a group to its record target and to the base it
// extends while the run goes on: the written file is built from the
// files as they were before, and both changes are found.
func TestRecordBuildsFromTheSnapshotOnly(t *testing.T) {
	dir := t.TempDir()
	base := writeFile(t, dir, "runtimes/base.yaml", "version: 1\nsyscalls:\n  x86_64: [close, read]\n")
	path := writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nextends: [runtimes/base.yaml]\nsyscalls:\n  x86_64: [write]\n")
	missing := filepath.Join(dir, "b.yaml")
	before := SnapshotStack(path, missing)
	if got := before.Paths(); !slices.Equal(got, []string{path, base, missing}) {
		t.Fatalf("snapshot read %q", got)
	}
	if got := before.Changed(); len(got) != 0 {
		t.Fatalf("nothing changed yet, got %q", got)
	}
	appendTo(t, path, poisonGroup)
	appendTo(t, base, "  # "+strings.Repeat("x", 10)+"\n")
	appendTo(t, missing, poisonGroup)

	if got := before.Changed(); !slices.Equal(got, []string{path, base, missing}) {
		t.Errorf("changed: %q", got)
	}
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "write": 2, "openat": 1}})
	if _, err := WriteRecorded(path, o, RecordOptions{Before: before}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "poison") || strings.Contains(string(data), "connect") {
		t.Errorf("the planted group reached the written file:\n%s", data)
	}
	if !strings.Contains(string(data), "openat") {
		t.Errorf("the observation is missing from the written file:\n%s", data)
	}
	// A file the snapshot never read is not read from the disk either.
	if _, err := before.Read(filepath.Join(dir, "other.yaml")); err == nil {
		t.Error("read a file outside the snapshot")
	}
}
