package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/golden"
	"github.com/sysgate/sysgate/internal/testutil"
)

// The base commit of the --base fixture: a runtime base and an agent with
// a programs section.
var widenBase = map[string]string{
	".github/CODEOWNERS":  "# baselines need the security team\n* @acme/devs\n/baselines/ @acme/security\n",
	"baselines/base.yaml": "version: 1\nsyscalls:\n  x86_64:\n    - close\n    - exit_group\n    - read\n    - write\n",
	"baselines/agent.yaml": `version: 1
agent: demo
extends:
  - base.yaml
programs:
  - /usr/bin/git
  - /usr/bin/python3.13
syscalls:
  x86_64:
    - getppid
    - openat(read)
    - socket(AF_UNIX)
`,
}

// widenPR widens it every way a pull request can: a new class, an
// argument-blind entry where the base had a class, a risky syscall, a
// program, a new arch; and narrows it (getppid gone), which is not listed.
const widenPR = `version: 1
agent: demo
extends:
  - base.yaml
programs:
  - path: /usr/bin/curl
    reason: fetches the task
  - /usr/bin/git
  - /usr/bin/python3.13
syscalls:
  aarch64:
    - read
  x86_64:
    - openat
    - ptrace: attaches a debugger
    - socket(AF_INET): calls the model API
    - socket(AF_UNIX)
`

// widenRepo makes a repository whose HEAD is the base, with the working
// tree as the pull request left it; the commit's hash is fixed.
func widenRepo(t *testing.T, pr map[string]string) string {
	t.Helper()
	return widenRepoFrom(t, widenBase, pr)
}

// widenRepoFrom is widenRepo with base as the base commit's tree.
func widenRepoFrom(t *testing.T, base, pr map[string]string) string {
	t.Helper()
	testutil.RequireCommand(t, "git", "baseline diff --base reads the base with git")
	dir := t.TempDir()
	writeTree(t, dir, base)
	for _, kv := range []string{"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeTree(t, dir, pr)
	t.Chdir(dir)
	return dir
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(dir, name), content)
	}
}

func TestBaselineDiffBase(t *testing.T) {
	// Absolute: the test runs in the fixture's repository.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	goldens := map[string]string{"text": "diff-base.txt", "markdown": "diff-base.md", "github": "diff-base-github.out"}
	for k, v := range goldens {
		goldens[k] = filepath.Join(wd, "testdata", "baseline", v)
	}
	widenRepo(t, map[string]string{"baselines/agent.yaml": widenPR})
	for _, format := range []string{"text", "markdown", "github"} {
		code, out, errOut := run(t, "baseline", "diff", "--base", "main", "--format", format, "--level", "error", "baselines")
		if code != ExitViolation {
			t.Errorf("%s: a widening pull request: code %d, want 1 (%s)", format, code, errOut)
		}
		for _, want := range []string{"socket(AF_INET)", "ptrace", "/usr/bin/curl", "aarch64", "openat", "@acme/security"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the widening does not name %s:\n%s", format, want, out)
			}
		}
		if strings.Contains(out, "getppid") || strings.Contains(out, "socket(AF_UNIX)") || strings.Contains(out, "@acme/devs") {
			t.Errorf("%s: lists what did not widen, or the catch-all owner:\n%s", format, out)
		}
		golden.Check(t, goldens[format], []byte(out))
	}
}

func TestBaselineDiffBaseNarrowAndEqual(t *testing.T) {
	narrow := strings.Replace(widenBase["baselines/agent.yaml"], "    - getppid\n", "", 1)
	widenRepo(t, map[string]string{"baselines/agent.yaml": narrow})
	for _, files := range [][]string{{"baselines"}, {"baselines/agent.yaml"}, {"baselines/base.yaml"}} {
		code, out, errOut := run(t, append([]string{"baseline", "diff", "--base", "HEAD"}, files...)...)
		if code != ExitOK || !strings.HasPrefix(out, "no widening") {
			t.Errorf("%v: a narrowing pull request: code %d out %q err %q, want 0 and no widening", files, code, out, errOut)
		}
	}
	if code, _, errOut := run(t, "baseline", "diff", "--base", "--upload-pack=x", "baselines"); code != ExitUsage || !strings.Contains(errOut, "no such commit") {
		t.Errorf("a ref that is an option: code %d err %q, want 2", code, errOut)
	}
	if code, _, errOut := run(t, "baseline", "diff", "--base", "HEAD", "--format", "html", "baselines"); code != ExitUsage {
		t.Errorf("--format html: code %d err %q", code, errOut)
	}
}

func TestBaselineDiffBaseNewAgent(t *testing.T) {
	// A file the base lacks allowed nothing: all of it widens.
	widenRepo(t, map[string]string{"baselines/new.yaml": "version: 1\nagent: fresh\nsyscalls:\n  x86_64:\n    - getppid\n"})
	code, out, _ := run(t, "baseline", "diff", "--base", "HEAD", "baselines/new.yaml")
	if code != ExitViolation || !strings.Contains(out, "baselines/new.yaml:5: x86_64 getppid") {
		t.Errorf("a new agent's file: code %d out %q, want 1 naming getppid", code, out)
	}
}
