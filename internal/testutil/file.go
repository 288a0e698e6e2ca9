package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
)

// WriteFile writes content to dir/name, making the folders on the way,
// and returns the path.
func WriteFile(t TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	return path
}

// CopyWorkTree copies the files git sees in from's work tree (tracked or
// not, minus the ignored ones: no node_modules), as they are on disk, to
// to, which it makes.
func CopyWorkTree(t TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	sh := `git -C "$1" ls-files -z --cached --others --exclude-standard | (cd "$1" && tar --null -T - -cf -) | tar -xf - -C "$2"`
	if out, err := exec.Command("sh", "-c", sh, "sh", from, to).CombinedOutput(); err != nil {
		t.Fatalf("copy the work tree of %s: %v: %s", from, err, out)
	}
}
