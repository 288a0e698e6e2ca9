package gatetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGuardIsMadeOncePerValue(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := Guard(dir)
	if err != nil || first == nil {
		t.Fatalf("Guard(%s) = %v, %v", dir, first, err)
	}
	// A change after the first run must still be a change at the next:
	// the same guard, not one made afresh from the changed file.
	if err := os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("version: 1\ngroups: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Guard(" " + dir + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatalf("Guard made a second guard for the same paths")
	}
	if got := again.Changed(); len(got) != 1 {
		t.Errorf("Changed() = %v, want the file changed after the first call", got)
	}
}

func TestEnvOptionsRefusesAMissingGuardedPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	getenv := func(k string) string {
		if k == EnvBaselines {
			return missing
		}
		return ""
	}
	if _, err := EnvOptions("agent", getenv); err == nil || !strings.Contains(err.Error(), EnvBaselines) {
		t.Fatalf("EnvOptions with $%s=%s: err = %v, want one naming the variable", EnvBaselines, missing, err)
	}
}
