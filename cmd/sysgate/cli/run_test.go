package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// runAgentVerb runs a verb that runs an agent, once: a user's CI repeats
// nothing (issue 42).
func runAgentVerb(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return run(t, args...)
}

func TestRecordThenCheckTrue(t *testing.T) {
	testutil.RequireAudit(t)
	path := filepath.Join(t.TempDir(), "true.yaml")
	obs := filepath.Join(t.TempDir(), "true.json")
	code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--observation", obs, "--", "/bin/true")
	if code != ExitOK || !strings.Contains(stderr, "wrote "+path) {
		t.Fatalf("record: code %d\n%s", code, stderr)
	}
	if _, err := os.Stat(obs); err != nil {
		t.Fatalf("observation not written: %v", err)
	}
	for i := range 2 {
		code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--", "/bin/true")
		if code != ExitOK || !strings.Contains(stdout, "CLEAN") {
			t.Fatalf("check %d: code %d\n%s%s", i, code, stdout, stderr)
		}
	}
}

func TestCheckReportsOrphanSocket(t *testing.T) {
	testutil.RequireAudit(t)
	path := filepath.Join(t.TempDir(), "true.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", "/bin/true"); code != ExitOK {
		t.Fatalf("record: %d %s", code, stderr)
	}
	// The command as written: python3 from PATH. Where that is a
	// version manager's shim (pyenv's bash, which without HOME opens
	// sockets itself), bash may make socket first; python must still be
	// named among the programs that made it.
	cmd := `ls / >/dev/null; (python3 -c "import socket; socket.socket()" &)`
	code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--", "sh", "-c", cmd)
	if code != ExitViolation || !strings.Contains(stdout, "socket") || !strings.Contains(stdout, "python") {
		t.Fatalf("check: code %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runAgentVerb(t, "check", "-b", path, "--format", "json", "--", "sh", "-c", cmd)
	var r verdict.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != ExitViolation {
		t.Fatalf("json: code %d, %v\n%s", code, err, stdout)
	}
	found := false
	for _, v := range r.Violations {
		byPython := strings.Contains(v.Exe, "python")
		for _, c := range v.Also {
			byPython = byPython || strings.Contains(c.Exe, "python")
		}
		found = found || (v.Syscall == "socket(AF_INET)" && byPython && v.File == path)
	}
	if !found {
		t.Errorf("json result lacks the socket violation: %+v", r.Violations)
	}
	resultFile := filepath.Join(t.TempDir(), "result.json")
	code, stdout, _ = runAgentVerb(t, "check", "-b", path, "--format", "github", "--result", resultFile, "--", "sh", "-c", cmd)
	if data, err := os.ReadFile(resultFile); err != nil || json.Unmarshal(data, &r) != nil || r.Verdict != verdict.VerdictViolation {
		t.Errorf("--result file: %v verdict %q", err, r.Verdict)
	}
	if code != ExitViolation || !strings.Contains(stdout, "::error file="+path+",line=") {
		t.Errorf("github: code %d\n%s", code, stdout)
	}
}

// The library reads no environment: with make baseline-update's variables
// set, `sysgate check` still checks (exit 1 on a violation) and writes no
// observation file.
func TestCheckIgnoresRecordEnvironment(t *testing.T) {
	testutil.RequireAudit(t)
	path := filepath.Join(t.TempDir(), "true.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", "/bin/true"); code != ExitOK {
		t.Fatalf("record: %d %s", code, stderr)
	}
	obs := t.TempDir()
	t.Setenv("SYSGATE_MODE", "record")
	t.Setenv("SYSGATE_OBSERVATIONS", obs)
	code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--agent", "ls", "--", "ls", "/")
	if code != ExitViolation || !strings.Contains(stdout, "VIOLATION") {
		t.Fatalf("check under SYSGATE_MODE=record: code %d; want %d (a check)\n%s%s", code, ExitViolation, stdout, stderr)
	}
	if left, _ := os.ReadDir(obs); len(left) > 0 {
		t.Errorf("check wrote observations into $SYSGATE_OBSERVATIONS: %v", left)
	}
}

func TestRunVerbErrors(t *testing.T) {
	testutil.RequireAudit(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "true.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", "/bin/true"); code != ExitOK {
		t.Fatalf("record: %d %s", code, stderr)
	}
	// A misspelt command is bad input (exit 2), named with the PATH it
	// was looked for in; a command that exists and cannot run is not.
	if code, _, stderr := runAgentVerb(t, "check", "-b", path, "--", "sysgate-no-such-agent"); code != ExitUsage ||
		!strings.Contains(stderr, "command not found: sysgate-no-such-agent: no executable of that name in the agent's PATH=") {
		t.Errorf("missing agent: code %d %s", code, stderr)
	}
	if code, _, stderr := runAgentVerb(t, "check", "-b", path, "--", "./sysgate-no-such-agent"); code != ExitUsage ||
		!strings.Contains(stderr, "command not found: ./sysgate-no-such-agent: no such file") {
		t.Errorf("missing agent by path: code %d %s", code, stderr)
	}
	if code, _, stderr := runAgentVerb(t, "check", "-b", path, "--", dir); code != ExitInconclusive || !strings.Contains(stderr, "agent could not be started") {
		t.Errorf("a directory as the agent: code %d %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nsyscalls:\n  x86_64:\n    - opnat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runAgentVerb(t, "check", "-b", bad, "--", "/bin/true"); code != ExitUsage || !strings.Contains(stderr, "bad.yaml") {
		t.Errorf("bad baseline: code %d %s", code, stderr)
	}
	if code, _, _ := runAgentVerb(t, "check", "--", "/bin/true"); code != ExitUsage {
		t.Errorf("no -b: code %d", code)
	}
	if code, _, _ := runAgentVerb(t, "check", "-b", path, "--format", "xml", "--", "/bin/true"); code != ExitUsage {
		t.Errorf("bad format: code %d", code)
	}
	code, stdout, _ := runAgentVerb(t, "enforce", "-b", path, "--", "sh", "-c", "exit 0")
	if code != ExitViolation || !strings.Contains(stdout, "enforce") {
		t.Errorf("enforce of sh against the true baseline: code %d\n%s", code, stdout)
	}
}

// A runtime base plus an agent file that extends it: record writes only
// what the base lacks, --merge keeps earlier entries, and check takes the
// agent file as it is.
func TestRecordExtendsAndMerge(t *testing.T) {
	testutil.RequireAudit(t)
	dir := t.TempDir()
	base, agent := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "agent.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", base, "--agent", "base", "--", "/bin/true"); code != ExitOK {
		t.Fatalf("record base: %d %s", code, stderr)
	}
	code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", agent, "--agent", "agent", "--extends", base, "--", "sh", "-c", "exit 0")
	if code != ExitOK {
		t.Fatalf("record agent: %d %s", code, stderr)
	}
	data, err := os.ReadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.Contains(text, "base.yaml") || strings.Contains(text, "- execve") {
		t.Errorf("agent file should extend base.yaml and leave its syscalls out:\n%s", text)
	}
	// A second, different run merged in: the first run's entries stay.
	code, _, stderr = runAgentVerb(t, "record", "--runs", "1", "-o", agent, "--agent", "agent", "--merge", "--", "sh", "-c", "ls / >/dev/null")
	if code != ExitOK {
		t.Fatalf("record --merge: %d %s", code, stderr)
	}
	merged, _ := os.ReadFile(agent)
	if !strings.Contains(string(merged), "- getdents64") || !strings.Contains(string(merged), "base.yaml") {
		t.Errorf("merged file lost something:\n%s", merged)
	}
	for _, cmd := range [][]string{{"sh", "-c", "exit 0"}, {"sh", "-c", "ls / >/dev/null"}, {"/bin/true"}} {
		code, stdout, stderr := runAgentVerb(t, append([]string{"check", "-b", agent, "--"}, cmd...)...)
		if code != ExitOK {
			t.Errorf("check %v: %d\n%s%s", cmd, code, stdout, stderr)
		}
	}
}
