package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// runEnv is run with sysgate's own environment set to env (as sudo sets
// SUDO_UID and SUDO_GID), once.
func runEnv(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &Command{Stdout: &out, Stderr: &errb, Env: env}
	code = c.Main(append([]string{"sysgate"}, args...))
	return code, out.String(), errb.String()
}

// Under sudo the agent runs as the user who ran sudo (issue 13), and the
// result says so; --user root keeps root.
func TestAgentRunsAsTheSudoCaller(t *testing.T) {
	testutil.RequireAudit(t)
	base := filepath.Join(t.TempDir(), "id.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", base, "--user", "65534:65534", "--", "/usr/bin/id", "-u"); code != ExitOK {
		t.Fatalf("record: %d %s", code, stderr)
	}
	if err := os.Chmod(filepath.Dir(base), 0o755); err != nil {
		t.Fatal(err)
	}
	sudo := append(os.Environ(), "SUDO_UID=65534", "SUDO_GID=65534", "SUDO_USER=nobody")
	for _, c := range []struct {
		name string
		env  []string
		args []string
		uid  uint32
	}{
		{"through sudo", sudo, nil, 65534},
		{"through sudo, --user root", sudo, []string{"--user", "root"}, 0},
		{"sudo run by root", append(os.Environ(), "SUDO_UID=0", "SUDO_GID=0"), nil, 0},
		{"without sudo", os.Environ(), nil, 0},
	} {
		args := append(append([]string{"check", "--format", "json", "--allow-agent-failure", "-b", base}, c.args...), "--", "/usr/bin/id", "-u")
		code, stdout, stderr := runEnv(t, c.env, args...)
		var r verdict.Result
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s: code %d, %v\n%s%s", c.name, code, err, stdout, stderr)
		}
		if r.UID != c.uid || r.GID != c.uid {
			t.Errorf("%s: result uid %d gid %d, want %d", c.name, r.UID, r.GID, c.uid)
		}
		// The agent's own answer (its stdout goes to stderr with --format json).
		if got := strings.TrimSpace(stderr); !strings.HasPrefix(got, strconv.FormatUint(uint64(c.uid), 10)) {
			t.Errorf("%s: agent said it is uid %q, want %d", c.name, got, c.uid)
		}
	}
	if code, _, stderr := runEnv(t, append(os.Environ(), "SUDO_UID=bob"), "check", "-b", base, "--", "/usr/bin/id"); code != ExitUsage || !strings.Contains(stderr, "SUDO_UID") {
		t.Errorf("a non-numeric SUDO_UID: code %d %s", code, stderr)
	}
}

// The same through the real sudo: an unprivileged user runs
// `sudo sysgate check` from their home directory, and the agent runs as
// that user; `sudo sysgate check --user root` keeps root.
func TestAgentRunsAsTheCallerOfRealSudo(t *testing.T) {
	testutil.RequireAudit(t)
	u := testutil.RequireSudoUser(t)
	bin := newUnprivileged(t).bin
	dir := t.TempDir() // not newUnprivileged's: record refuses a directory the agent's user can write
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "id.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", base, "--user", fmt.Sprintf("%d:%d", u.UID, u.GID), "--", "/usr/bin/id", "-u"); code != ExitOK {
		t.Fatalf("record: %d %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		args []string
		uid  uint32
	}{
		{"sudo sysgate check", nil, u.UID},
		{"sudo sysgate check --user root", []string{"--user", "root"}, 0},
	} {
		args := append(append([]string{bin, "check", "--format", "json", "-b", base}, c.args...), "--", "/usr/bin/id", "-u")
		var code int
		var stdout, stderr bytes.Buffer
		cmd := u.Sudo("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code = cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("%s: %v", c.name, err)
		}
		var r verdict.Result
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("%s: exit %d, %v\n%s%s", c.name, code, err, stdout.String(), stderr.String())
		}
		if code != ExitOK || r.Verdict != verdict.VerdictClean {
			t.Errorf("%s: exit %d, verdict %s\n%s", c.name, code, r.Verdict, stderr.String())
		}
		if r.UID != c.uid || r.GID != map[bool]uint32{true: u.GID, false: 0}[c.uid != 0] {
			t.Errorf("%s: result uid %d gid %d, want uid %d", c.name, r.UID, r.GID, c.uid)
		}
		if got := strings.TrimSpace(stderr.String()); got != strconv.FormatUint(uint64(c.uid), 10) {
			t.Errorf("%s: the agent said it is uid %q, want %d", c.name, got, c.uid)
		}
	}
}
