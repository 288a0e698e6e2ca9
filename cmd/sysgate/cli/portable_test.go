package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// systemPrefixes are where a path means the same on every machine of one
// image: a baseline line under one of them travels; any other absolute
// path (a home, a checkout, a pyenv root, a temporary directory) breaks
// on the next machine.
var systemPrefixes = []string{"/usr/", "/etc/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/proc/", "/sys/", "/dev/", "/run/"}

// absolutePath finds an absolute path in a baseline's text: at the start
// of a value or after a space (a runtime's path in the environment).
var absolutePath = regexp.MustCompile(`(?m)(?:^\s*-\s+"?|\s)(/[^\s"]*)`)

// The README's loop, as a new user runs it: `sysgate record -o agent.yaml
// -- python3 agent.py` with no --agent, in a checkout, with python3 from
// the machine's PATH (here a pyenv under root's home). The file names the
// agent after its script, holds no absolute path but system ones (the
// checkout, the home, the interpreter's prefix are placeholders), and a
// check of the same agent against it is clean. On both backends.
func TestRecordWritesNoMachinePath(t *testing.T) {
	python3, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	for _, backend := range []string{"audit", "notify"} {
		t.Run(backend, func(t *testing.T) {
			dir := checkoutFor(t, backend)
			agent := "import json, ssl\nssl.create_default_context()\n" +
				"with open('out.json', 'w') as f:\n    json.dump({'ok': True}, f)\nprint(open('out.json').read())\n"
			if err := os.WriteFile(filepath.Join(dir, "agent.py"), []byte(agent), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "agent.yaml")
			if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "--backend", backend, "--dir", dir, "-o", path, "--", "python3", "agent.py"); code != ExitOK {
				t.Fatalf("record: %d\n%s", code, stderr)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			if !strings.Contains(text, "\nagent: agent\n") {
				t.Errorf("the agent is not named after its script agent.py:\n%s", text)
			}
			for _, m := range absolutePath.FindAllStringSubmatch(text, -1) {
				p := m[1]
				if !hasSystemPrefix(p) {
					t.Errorf("%s holds the machine path %s (python3 is %s, home %s, checkout %s)", path, p, python3, os.Getenv("HOME"), dir)
				}
			}
			if code, stdout, stderr := runAgentVerb(t, "check", "--backend", backend, "--dir", dir, "-b", path, "--", "python3", "agent.py"); code != ExitOK {
				t.Fatalf("check against the recorded file: code %d\n%s%s\n%s", code, stdout, stderr, text)
			}
		})
	}
}

// checkoutFor is a new git checkout for an agent run on backend, as a
// user's repository is (record writes the agent's own files relative to
// the baseline in one); it skips a backend this machine cannot run.
func checkoutFor(t *testing.T, backend string) string {
	t.Helper()
	requireBackend(t, backend)
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

func hasSystemPrefix(p string) bool {
	for _, s := range systemPrefixes {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}
