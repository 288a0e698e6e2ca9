package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeGuardFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBaselineGuardFindsEveryChangeUnderADirectory(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a", "a.yaml"), filepath.Join(root, "b", "b.yaml")
	writeGuardFile(t, a, "version: 1\n")
	writeGuardFile(t, b, "version: 1\n")
	writeGuardFile(t, filepath.Join(root, "notes.txt"), "not a baseline\n")
	g, err := NewBaselineGuard(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Paths(); !slices.Equal(got, []string{root}) {
		t.Errorf("Paths() = %v, want the directory %s", got, root)
	}
	if got := g.Changed(); len(got) != 0 {
		t.Fatalf("Changed() before any change = %v", got)
	}
	// Not a baseline: ignored.
	writeGuardFile(t, filepath.Join(root, "notes.txt"), "changed\n")
	writeGuardFile(t, b, "version: 1\ngroups: {}\n")
	created := filepath.Join(root, "b", "runtimes", "new.yaml")
	writeGuardFile(t, created, "version: 1\n")
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	want := []string{a, b, created}
	slices.Sort(want)
	if got := g.Changed(); !slices.Equal(got, want) {
		t.Errorf("Changed() = %v, want %v (changed, created, removed)", got, want)
	}
	// The hashes are the first run's: putting a file back as it was
	// clears it, and nothing else.
	writeGuardFile(t, b, "version: 1\n")
	if got := g.Changed(); slices.Contains(got, b) {
		t.Errorf("Changed() = %v: a file restored byte for byte counts as changed", got)
	}
}

func TestBaselineGuardOfAFileCoversItsExtendsAndLayerDirectory(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agents", "agent.yaml")
	base := filepath.Join(root, "runtimes", "base.yaml")
	layer := filepath.Join(root, "layers", "debian-12", "python-3.11.yaml")
	writeGuardFile(t, agent, "version: 1\nextends:\n  - ../runtimes/base.yaml\n  - ../layers/{os}/python-{python}.yaml\n")
	writeGuardFile(t, base, "version: 1\n")
	writeGuardFile(t, layer, "version: 1\n")
	g, err := NewBaselineGuard(agent)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{agent, filepath.Join(root, "layers"), layer, base}
	slices.Sort(want)
	if got := g.Paths(); !slices.Equal(got, want) {
		t.Errorf("Paths() = %v, want %v", got, want)
	}
	other := filepath.Join(root, "layers", "ubuntu-24.04", "python-3.12.yaml")
	writeGuardFile(t, other, "version: 1\n")
	writeGuardFile(t, base, "version: 1\n# changed\n")
	want = []string{base, other}
	slices.Sort(want)
	if got := g.Changed(); !slices.Equal(got, want) {
		t.Errorf("Changed() = %v, want %v", got, want)
	}
}

func TestBaselineGuardRefusesAMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	if _, err := NewBaselineGuard(missing); err == nil {
		t.Fatalf("NewBaselineGuard(%s) = nil error: a guard on nothing would pass for protection", missing)
	}
}

func TestGuardedChangesLeavesOutTheRunsOwnModifiedFiles(t *testing.T) {
	root := t.TempDir()
	own, other := filepath.Join(root, "own.yaml"), filepath.Join(root, "other.yaml")
	writeGuardFile(t, own, "version: 1\n")
	writeGuardFile(t, other, "version: 1\n")
	g, err := NewBaselineGuard(root)
	if err != nil {
		t.Fatal(err)
	}
	writeGuardFile(t, own, "x\n")
	writeGuardFile(t, other, "x\n")
	if got := guardedChanges([]*BaselineGuard{g, g}, []string{own}); !slices.Equal(got, []string{other}) {
		t.Errorf("guardedChanges = %v, want only %s, once", got, other)
	}
}
