package testutil

import (
	"os"
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
