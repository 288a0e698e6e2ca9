package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// baseline diff lists the files entries only one side has, a sensitive
// new one marked.
func TestBaselineDiffFiles(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.yaml")
	cur := filepath.Join(dir, "new.yaml")
	writeTestFile(t, old, "version: 1\nagent: a\nfiles:\n  read:\n    - \"{workspace}/src/**\"\nsyscalls:\n  x86_64: [read]\n")
	writeTestFile(t, cur, "version: 1\nagent: a\nfiles:\n  read:\n    - path: \"{home}/.ssh/id_rsa\"\n      reason: the deploy key\n  write:\n    - \"{tmp}/**\"\nsyscalls:\n  x86_64: [read]\n")
	code, out, errOut := run(t, "baseline", "diff", old, cur)
	want := "files:\n  + read {home}/.ssh/id_rsa [sensitive: ssh key, high]\n  + write {tmp}/**\n  - read {workspace}/src/**\n0 new, 0 removed; files: 2 new, 1 removed\n"
	if code != ExitViolation || out != want || errOut != "" {
		t.Errorf("code %d\n%s\nwant\n%s%s", code, out, want, errOut)
	}
	code, out, _ = run(t, "baseline", "diff", "--format", "markdown", old, cur)
	if code != ExitViolation || !strings.Contains(out, "#### Files: 2 new, 1 removed") || !strings.Contains(out, "| **new** | read | `{home}/.ssh/id_rsa` | ⚠️ ssh key, high |") {
		t.Errorf("markdown: code %d\n%s", code, out)
	}
}
