package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

const (
	readmePath   = "../../README.md"
	tryItSection = "## Try it on your agent"
)

// readmeAgent stands for the reader's agent: it reads and writes in its
// directory, as an agent working on a checkout does.
const readmeAgent = `import json, pathlib
notes = pathlib.Path("notes.txt")
notes.write_text("triage: 3 open issues\n")
print(json.dumps({"read": notes.read_text().strip()}))
`

var exitComment = regexp.MustCompile(`\bexit ([0-9])\b`)

// tryItLines are the command lines of the README's shell block in
// tryItSection, with the README line of each.
func tryItLines(t *testing.T) ([]string, []int) {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cmds []string
	var at []int
	in, block := false, false
	for i, line := range lines {
		switch {
		case line == tryItSection:
			in = true
		case in && !block && strings.HasPrefix(line, "#"):
			in = false
		case in && !block && line == "```sh":
			block = true
		case in && block && line == "```":
			return cmds, at
		case in && block && strings.TrimSpace(line) != "":
			cmds, at = append(cmds, line), append(at, i+1)
		}
	}
	t.Fatalf("%s: no ```sh block in %q", readmePath, tryItSection)
	return nil, nil
}

// TestReadmeLoop runs the README's loop on the reader's own agent as
// written: record, check (exit 0), the regression, check (exit 1), each
// line through sh in the agent's directory with this checkout's sysgate
// first on PATH. A comment "exit N" on a line is its expected exit code,
// else 0; a run that lost audit records to the busy machine runs again.
func TestReadmeLoop(t *testing.T) {
	testutil.RequireCommand(t, "python3", "the README's agent is python3 agent.py")
	cmds, at := tryItLines(t)
	if len(cmds) < 3 {
		t.Fatalf("%s: %q has %d commands, want record, check and the regression", readmePath, tryItSection, len(cmds))
	}
	bin := testutil.WorldDir(t, "sysgate-readme-bin-")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "sysgate"), ".").CombinedOutput(); err != nil {
		t.Fatalf("build sysgate: %v\n%s", err, out)
	}
	dir := testutil.WorldDir(t, "sysgate-readme-agent-")
	testutil.WriteFile(t, dir, "agent.py", readmeAgent)

	var violations int
	for i, line := range cmds {
		command, comment, _ := strings.Cut(line, "#")
		want := 0
		if m := exitComment.FindStringSubmatch(comment); m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		code, out := runLine(t, bin, dir, command)
		if code != want {
			t.Fatalf("%s:%d: %s\nexit %d, want %d:\n%s", readmePath, at[i], strings.TrimSpace(command), code, want, out)
		}
		if want == 1 {
			violations++
			if !strings.Contains(out, "VIOLATION") {
				t.Errorf("%s:%d: exit 1 without a VIOLATION report:\n%s", readmePath, at[i], out)
			}
		}
		t.Logf("%s:%d: %s: exit %d", readmePath, at[i], strings.TrimSpace(command), code)
	}
	if violations == 0 {
		t.Errorf("%s: %q has no line that exits 1: the loop must show the gate failing", readmePath, tryItSection)
	}
}

// runLine runs one README line through sh in dir, with bin first on PATH,
// and returns its exit code and output.
func runLine(t *testing.T, bin, dir, command string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	t.Fatalf("sh -c %q: %v", command, err)
	return 0, ""
}
