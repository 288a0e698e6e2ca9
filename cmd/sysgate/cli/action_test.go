package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionRun runs one action verb the way action.yml does: inputs as
// INPUT_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY as files, in
// dir. It returns the exit code, stdout and the outputs file.
func actionRun(t *testing.T, dir, verb string, env ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	out := filepath.Join(t.TempDir(), "output")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &stderr, Env: append([]string{"GITHUB_OUTPUT=" + out, "PATH=" + os.Getenv("PATH"), "RUNNER_TEMP=" + t.TempDir()}, env...)}
	code := c.Main(append([]string{"sysgate", "action"}, strings.Fields(verb)...))
	outputs, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String() + stderr.String(), string(outputs)
}

// Bad inputs stop the gate before anything runs: exit 2, an error
// annotation naming the input and the fix, and the code output.
func TestActionGateRefusesBadInputs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine", "keep.txt"), []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mine", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	command := []string{"INPUT_COMMAND=/bin/true", "INPUT_BASELINES=agent.yaml"}
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"INPUT_STRICT=yes"}, "strict: 'yes' is not true or false"},
		{[]string{"INPUT_UPLOAD=1"}, "upload: '1' is not true or false"},
		{[]string{"INPUT_ALLOW_AGENT_FAILURE=on"}, "allow-agent-failure: 'on' is not true or false"},
		{[]string{"INPUT_MODE=learn"}, "mode: 'learn' is not check, record or enforce"},
		{[]string{"INPUT_BACKEND=ebpf"}, "backend: 'ebpf' is not auto, audit or notify"},
		{[]string{"INPUT_RECORD_RUNS=0"}, "record-runs: '0' is not a number of runs"},
		{[]string{"INPUT_ARGS=--result=/tmp/forged.json"}, "args: --result is not one the action passes on"},
		{[]string{"INPUT_PASS_ENV=A;B"}, "pass-env: 'A;B' is not a variable name or glob"},
		{[]string{"INPUT_ENV_FILE=missing.env"}, "env-file: missing.env is not a file"},
		{[]string{"INPUT_ENV_FILE=mine"}, "env-file: mine is not a file"},
		{[]string{"INPUT_PACKAGES=./..."}, "give command or packages, not both"},
		{[]string{"INPUT_COMMAND="}, "give command (the agent's command line) or packages"},
		{[]string{"INPUT_BASELINES="}, "baselines: check needs the agent's baseline files"},
		{[]string{"INPUT_REPORTS=mine"}, "reports: mine exists and is not sysgate's (no .sysgate-reports in it)"},
		{[]string{"INPUT_REPORTS=link"}, "reports: link is a symbolic link"},
		{[]string{"INPUT_REPORTS=agent.yaml"}, "reports: agent.yaml exists and is not a directory"},
	} {
		code, log, outputs := actionRun(t, dir, "gate", append(append([]string{}, command...), tc.env...)...)
		if code != ExitUsage || !strings.Contains(log, "::error title=sysgate::"+tc.want) || !strings.Contains(outputs, "\ncode=2\n") {
			t.Errorf("%v: exit %d, outputs %q, log:\n%s\nwant exit 2 and an error saying %q", tc.env, code, outputs, log, tc.want)
		}
		if !strings.HasPrefix(outputs, "artifact-name=sysgate-job-Linux-X64-") {
			t.Errorf("%v: the artifact-name output is missing: %q", tc.env, outputs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "mine", "keep.txt")); err != nil {
		t.Errorf("the user's directory lost its file: %v", err)
	}
}

func TestActionStepNeedsGitHubOutput(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &stdout, Env: []string{"INPUT_COMMAND=/bin/true"}}
	if code := c.Main([]string{"sysgate", "action", "gate"}); code != ExitUsage || !strings.Contains(stdout.String(), "GITHUB_OUTPUT is not set") {
		t.Errorf("exit %d:\n%s", code, stdout.String())
	}
}

func TestActionWideningOutsideAPullRequest(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		env     []string
		code    int
		log     string
		outputs string
	}{
		{[]string{"GITHUB_EVENT_NAME=push"}, ExitOK, "sysgate: a push, not a pull request: no base to compare the baselines with", ""},
		{nil, ExitOK, "sysgate: a job without an event, not a pull request", ""},
		{[]string{"INPUT_ON_WIDENING=block"}, ExitUsage, "::error title=sysgate::on-widening: block is not fail or warn", ""},
		{[]string{"GITHUB_EVENT_NAME=pull_request", "SYSGATE_BASE_SHA=main"}, ExitUsage,
			"::error title=sysgate::on-widening: the pull_request event has no pull_request.base.sha (got 'main')", ""},
		{[]string{"GITHUB_EVENT_NAME=pull_request", "SYSGATE_BASE_SHA=" + strings.Repeat("a", 40), "INPUT_BASELINES=none.yaml"}, ExitOK,
			"sysgate: no baseline files to compare", "widened=false\n"},
	} {
		code, log, outputs := actionRun(t, dir, "widening", tc.env...)
		if code != tc.code || !strings.Contains(log, tc.log) || outputs != tc.outputs {
			t.Errorf("%v: exit %d, outputs %q, log:\n%s\nwant exit %d, outputs %q, %q", tc.env, code, outputs, log, tc.code, tc.outputs, tc.log)
		}
	}
}

func TestActionWideningVerdict(t *testing.T) {
	code, log, _ := actionRun(t, t.TempDir(), "widening-verdict", "SYSGATE_WIDENED=agent.yaml:12: x86_64 socket(AF_INET)")
	if code != ExitViolation || !strings.Contains(log, "::error title=sysgate::on-widening: fail: this pull request widens the baseline: agent.yaml:12: x86_64 socket(AF_INET).") {
		t.Errorf("exit %d:\n%s", code, log)
	}
}

func TestActionDoctorRefusesABadBackend(t *testing.T) {
	code, log, outputs := actionRun(t, t.TempDir(), "doctor", "INPUT_BACKEND=ebpf")
	if code != ExitUsage || !strings.Contains(log, "backend: 'ebpf' is not auto, audit or notify") || outputs != "" {
		t.Errorf("exit %d, outputs %q:\n%s", code, outputs, log)
	}
}

// A pull request that adds an entry: warn keeps the step green and says
// widened=true, the entries, and a warning annotation on the line; fail
// makes the annotation an error (the widening-verdict step fails the job).
func TestActionWideningOfAPullRequest(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const head = "version: 1\nagent: sample\nsyscalls:\n  x86_64:\n    - read: reads its task\n"
	git("init", "-q")
	write(head)
	git("add", "-A")
	git("commit", "-qm", "base")
	base := git("rev-parse", "HEAD")
	write(head + "    - socket(AF_INET): calls the model API\n")
	git("commit", "-qam", "widen")
	pr := []string{"GITHUB_EVENT_NAME=pull_request", "SYSGATE_BASE_SHA=" + base, "INPUT_BASELINES=agent.yaml"}

	code, log, outputs := actionRun(t, dir, "widening", pr...)
	if code != ExitOK || !strings.Contains(outputs, "widened=true\n") || !strings.Contains(outputs, "entries=agent.yaml:6: x86_64 socket(AF_INET)\n") {
		t.Errorf("warn: exit %d, outputs %q:\n%s", code, outputs, log)
	}
	if !strings.Contains(log, "::warning file=agent.yaml,line=6") {
		t.Errorf("warn: no warning annotation on agent.yaml:6:\n%s", log)
	}
	code, log, _ = actionRun(t, dir, "widening", append(pr, "INPUT_ON_WIDENING=fail")...)
	if code != ExitOK || !strings.Contains(log, "::error file=agent.yaml,line=6") {
		t.Errorf("fail: exit %d (the verdict is the next step's), want an error annotation on agent.yaml:6:\n%s", code, log)
	}
	// Narrowing is no widening.
	code, _, outputs = actionRun(t, dir, "widening", "GITHUB_EVENT_NAME=pull_request", "SYSGATE_BASE_SHA="+git("rev-parse", "HEAD"), "INPUT_BASELINES=agent.yaml")
	if code != ExitOK || outputs != "widened=false\n" {
		t.Errorf("no change: exit %d, outputs %q", code, outputs)
	}
}
