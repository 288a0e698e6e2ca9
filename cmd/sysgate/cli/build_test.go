package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// sharedTempDir is a temporary directory that other users can read and
// traverse (t.TempDir's and its parent's mode are 0700), for a binary or
// file a test hands to another uid.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildSysgate builds the sysgate binary into dir.
func buildSysgate(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "sysgate")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/sysgate/sysgate/cmd/sysgate").CombinedOutput(); err != nil {
		t.Fatalf("build sysgate: %v\n%s", err, out)
	}
	return bin
}
