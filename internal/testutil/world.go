package testutil

import (
	"os"
	"path/filepath"
)

// WorldDir is a fresh directory anyone may enter (t.TempDir's parent is
// its owner's alone), removed when the test ends, with symlinks resolved
// (paths the kernel reports are the resolved ones).
func WorldDir(t CleanupTB, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatalf("%v", err)
	}
	return dir
}

// SharedTestBinary copies the running test binary into dir (a WorldDir)
// as name, where another uid can run it (the build directory is the
// caller's alone), and returns the copy's path.
func SharedTestBinary(t TB, dir, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("%v", err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatalf("%v", err)
	}
	exe := filepath.Join(dir, name)
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	return exe
}
