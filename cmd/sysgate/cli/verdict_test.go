package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/testutil"
)

// recordSh records `sh -c script` and returns the baseline.
func recordSh(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sh.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", "sh", "-c", script); code != ExitOK {
		t.Fatalf("record: %d %s", code, stderr)
	}
	return path
}

// A crashing or failing agent is not a clean pass (issue 12): exit 4,
// unless --allow-agent-failure; a violation outranks the failure.
func TestAgentFailureExitsFour(t *testing.T) {
	testutil.RequireAudit(t)
	base := recordSh(t, `kill -0 $$; exit 0`) // the baseline knows kill
	for _, c := range []struct {
		name, script string
		flags        []string
		want         int
		text         string
	}{
		{"crash", `kill -SEGV $$`, nil, ExitAgentFailed, "killed by segmentation fault"},
		{"exit 3", `exit 3`, nil, ExitAgentFailed, "exited 3"},
		{"crash allowed", `kill -SEGV $$`, []string{"--allow-agent-failure"}, ExitOK, "CLEAN"},
		{"crash after a new syscall", `cat /proc/uptime >/dev/null; kill -SEGV $$`, nil, ExitViolation, "VIOLATION"},
	} {
		args := append(append([]string{"check", "-b", base}, c.flags...), "--", "sh", "-c", c.script)
		code, stdout, stderr := runAgentVerb(t, args...)
		if code != c.want || !strings.Contains(stdout, c.text) {
			t.Errorf("%s: code %d, want %d and %q\n%s%s", c.name, code, c.want, c.text, stdout, stderr)
		}
	}
}

// Bad input given as -b exits 2 at once, naming the path and the reason,
// whatever the privileges.
func TestBadBaselineInputExitsTwoAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, baseline.MaxInputSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, reason string }{
		{fifo, "FIFO"},
		{"/dev/zero", "character device"},
		{dir, "directory"},
		{big, "MiB limit"},
		{empty, "empty"},
		{filepath.Join(dir, "missing.yaml"), "no such file"},
	} {
		start := time.Now()
		code, _, stderr := run(t, "check", "-b", c.path, "--", "/bin/true")
		if code != ExitUsage || !strings.Contains(stderr, c.path) || !strings.Contains(stderr, c.reason) {
			t.Errorf("-b %s: code %d, want 2 naming the path and %q\n%s", c.path, code, c.reason, stderr)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("-b %s took %v", c.path, d)
		}
	}
}

func TestMissingArgumentsAreNamed(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--", "/bin/true"}, []string{"missing -b BASELINE"}},
		{[]string{"check", "-b", "x.yaml"}, []string{"missing -- CMD"}},
		{[]string{"record", "--runs", "1", "--", "/bin/true"}, []string{"missing -o BASELINE"}},
		{[]string{"enforce"}, []string{"missing -b BASELINE", "missing -- CMD"}},
	} {
		code, _, stderr := run(t, c.args...)
		if code != ExitUsage {
			t.Errorf("%v: code %d, want 2", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
	}
}
