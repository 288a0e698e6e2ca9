package ci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// shellcheckFinding is one comment of shellcheck's json1 output.
type shellcheckFinding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Level   string `json:"level"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// knownShellcheck are findings this test lets through, by file and code:
// scripts/action.sh belongs to the action's change, where they are
// reported. An entry that no longer occurs fails the test: delete it.
var knownShellcheck = map[string][]int{}

// shellcheck runs shellcheck (every severity, as actionlint runs it over
// run: steps) over files and returns its findings.
func shellcheck(t *testing.T, files ...string) []shellcheckFinding {
	t.Helper()
	testutil.RequireCommand(t, "shellcheck", "scripts/deps.sh --test installs it")
	cmd := exec.Command("shellcheck", append([]string{"--format=json1", "--external-sources"}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run() // exit 1 with findings
	var out struct {
		Comments []shellcheckFinding `json:"comments"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("shellcheck %v: %v (%v)\n%s", files, err, runErr, stderr.String())
	}
	if runErr != nil && len(out.Comments) == 0 {
		t.Fatalf("shellcheck %v: %v\n%s", files, runErr, stderr.String())
	}
	return out.Comments
}

func TestScriptsPassShellcheck(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "scripts", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(repoRoot, ".ci", "run"))
	if len(files) < 5 {
		t.Fatalf("scripts/*.sh: found only %v", files)
	}
	seen := map[string][]int{}
	for _, f := range shellcheck(t, files...) {
		base := filepath.Base(f.File)
		seen[base] = append(seen[base], f.Code)
		if slices.Contains(knownShellcheck[base], f.Code) {
			continue
		}
		t.Errorf("%s:%d:%d: %s [SC%d %s]", f.File, f.Line, f.Column, f.Message, f.Code, f.Level)
	}
	for file, codes := range knownShellcheck {
		for _, code := range codes {
			if !slices.Contains(seen[file], code) {
				t.Errorf("knownShellcheck: scripts/%s no longer has SC%d: delete the entry", file, code)
			}
		}
	}
}

// TestShellcheckCatchesBrokenScript proves the test above can fail.
func TestShellcheckCatchesBrokenScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.sh")
	if err := os.WriteFile(path, []byte("#!/usr/bin/env bash\nfor f in $(ls *.txt); do echo $f; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, f := range shellcheck(t, path) {
		codes = append(codes, fmt.Sprintf("SC%d", f.Code))
	}
	for _, want := range []string{"SC2045", "SC2086"} {
		if !slices.Contains(codes, want) {
			t.Errorf("broken.sh: no %s; got %v", want, codes)
		}
	}
}
