package ci

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoPath(t *testing.T) {
	for _, tc := range []struct{ root, base, path, want string }{
		{"/repo", "", "/repo/suites/baselines/a.yaml", "suites/baselines/a.yaml"},
		{"/repo", "/repo/suites/mcp", "../baselines/a.yaml", "suites/baselines/a.yaml"},
		{"/repo", "", "/elsewhere/a.yaml", "/elsewhere/a.yaml"}, // outside the repository: left absolute
		{"/repo", "", "/repository/a.yaml", "/repository/a.yaml"},
		{"", "", "rel/a.yaml", "rel/a.yaml"},
		{"/repo", "", "", ""},
	} {
		if got := RepoPath(tc.root, tc.base, tc.path); got != tc.want {
			t.Errorf("RepoPath(%q, %q, %q) = %q, want %q", tc.root, tc.base, tc.path, got, tc.want)
		}
	}
}

func TestFindRoot(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindRoot(deep); got != root {
		t.Errorf("FindRoot(%s) = %s, want %s", deep, got, root)
	}
}
