package gatetest

import (
	"os"
	"path/filepath"
	"testing"
)

// go test runs a spec in its package's directory: a relative
// SYSGATE_OBSERVATIONS=obs must still mean obs beside go.mod, where docs/
// mcp.md's next command (sysgate report pr-body ... obs/*.json) looks.
func TestRelativeEnvPathsAreTakenFromTheModuleRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "security", "deep")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	env := map[string]string{EnvObservations: "obs"}
	dir, err := observationDir(func(k string) string { return env[k] })
	if want := filepath.Join(root, "obs"); err != nil || dir != want {
		t.Errorf("SYSGATE_OBSERVATIONS=obs from %s: %q, %v; want %q", pkg, dir, err, want)
	}
	for _, abs := range []string{"/tmp/obs", ""} {
		env[EnvObservations] = abs
		if dir, err := observationDir(func(k string) string { return env[k] }); err != nil || dir != abs {
			t.Errorf("SYSGATE_OBSERVATIONS=%q: %q, %v; want it unchanged", abs, dir, err)
		}
	}
	if got := moduleRootOf("/"); got != "" {
		t.Errorf("moduleRootOf(/) = %q; want none", got)
	}
}
