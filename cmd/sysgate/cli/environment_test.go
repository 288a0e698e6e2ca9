package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// A baseline recorded here carries where it was recorded.
func TestRecordWritesTheEnvironment(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	_, data := recordPrint(t, py)
	real, _ := filepath.EvalSymlinks(py)
	// A runtime under the home is written from {home}: another user's
	// home is the same interpreter.
	if home, err := filepath.EvalSymlinks(os.Getenv("HOME")); err == nil && home != "/" && strings.HasPrefix(real, home+"/") {
		real = "{home}" + strings.TrimPrefix(real, home)
	}
	// The kernel by its version alone: "6.18", not this machine's build.
	for _, want := range []string{"environment:\n  x86_64:\n    kernel: " + runningKernelVersion(t) + "\n", "    os: debian 12\n", "    libc: glibc 2.", "    runtimes:\n      - python 3.11.", " " + real + "\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("recorded file lacks %q:\n%s", want, data)
		}
	}
}

// recordPrint records py printing 1 into a new baseline: its path and
// content.
func recordPrint(t *testing.T, py string) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.yaml")
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", py, "-I", "-S", "-c", "print(1)"); code != ExitOK {
		t.Fatalf("record: %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// A check with another interpreter than the one recorded names what
// changed; the same interpreter says it is a behaviour change.
func TestCheckExplainsEnvironmentDrift(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	system := "/usr/bin/python3.11"
	testutil.RequireCommand(t, system, "Debian's python3.11, the second interpreter")
	realPy, _ := filepath.EvalSymlinks(py)
	if realPy == system {
		t.Fatalf("[setup]: the test needs two interpreters, and python3 is %s", system)
	}
	path := filepath.Join(t.TempDir(), "a.yaml")
	well := "print(1)"
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", py, "-I", "-S", "-c", well); code != ExitOK {
		t.Fatalf("record: %d\n%s", code, stderr)
	}
	// The same interpreter doing something new: a behaviour change.
	changed := "import socket; socket.socket(socket.AF_INET).close()"
	code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--", py, "-I", "-S", "-c", changed)
	if code != ExitViolation || !strings.Contains(stdout, "same environment as recorded: this is a behaviour change") {
		t.Fatalf("check of a changed agent: code %d, want 1 saying the environment is the same\n%s%s", code, stdout, stderr)
	}
	// The system interpreter: whatever it calls beyond the recording is
	// put down to the interpreter, by name and version.
	code, stdout, stderr = runAgentVerb(t, "check", "-b", path, "--", system, "-I", "-S", "-c", changed)
	if code != ExitViolation || !strings.Contains(stdout, "environment drift: python 3.11.") || !strings.Contains(stdout, "→ 3.11.") ||
		!strings.Contains(stdout, "most likely environment drift") {
		t.Fatalf("check with another interpreter: code %d, want 1 naming the python change\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runAgentVerb(t, "check", "-b", path, "--format", "json", "--", system, "-I", "-S", "-c", changed)
	if code != ExitViolation || !strings.Contains(stdout, `"part": "python"`) || !strings.Contains(stdout, `"path": "`+system+`"`) {
		t.Fatalf("json: code %d, want the drift's parts\n%s", code, stdout)
	}
}

// runningKernelVersion is the running kernel's major.minor, "6.18".
func runningKernelVersion(t *testing.T) string {
	t.Helper()
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	major, rest, _ := strings.Cut(strings.TrimSpace(string(release)), ".")
	minor, _, _ := strings.Cut(rest, ".")
	minor = strings.TrimRightFunc(minor, func(r rune) bool { return r < '0' || r > '9' })
	if major == "" || minor == "" {
		t.Fatalf("[setup]: kernel release %q has no major.minor", release)
	}
	return major + "." + minor
}

// A baseline recorded on another build of this kernel's version (as on
// every other machine of one kind: 6.18.44-fc-v657, -v1300) is the same
// environment, also in the whole-release form older baselines carry; one
// recorded on another version is drift, named by version.
func TestCheckComparesTheKernelByVersion(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	path, recorded := recordPrint(t, py)
	version := runningKernelVersion(t)
	line := "    kernel: " + version + "\n"
	if !strings.Contains(string(recorded), line) {
		t.Fatalf("recorded file lacks %q:\n%s", line, recorded)
	}
	changed := "import socket; socket.socket(socket.AF_INET).close()"
	for _, tc := range []struct{ kernel, want string }{
		{"    kernel:\n      - " + version + ".44-fc-v657\n      - " + version + ".0-another-build\n", "same environment as recorded: this is a behaviour change"},
		{"    kernel: 5.10.0-30-amd64\n", "environment drift: kernel 5.10 → " + version + ": "},
	} {
		if err := os.WriteFile(path, []byte(strings.Replace(string(recorded), line, tc.kernel, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--", py, "-I", "-S", "-c", changed)
		if code != ExitViolation || !strings.Contains(stdout, tc.want) {
			t.Errorf("recorded with\n%swant exit 1 saying %q; got %d:\n%s%s", tc.kernel, tc.want, code, stdout, stderr)
		}
	}
}

// A baseline that picks its runtime layer by environment, in an
// environment nobody recorded: the check says so with the one command
// that records it, that command writes the layer and leaves the agent's
// file alone, and the next check is clean.
func TestUnrecordedEnvironmentIsRecordedByTheCommandItNames(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	dir := t.TempDir()
	agentYAML := "version: 1\nagent: layered\nextends:\n  - layers/{os}/python-{python}.yaml\nsyscalls:\n  x86_64:\n    - write\n"
	agent := filepath.Join(dir, "agent.yaml")
	other := filepath.Join(dir, "layers", "other-1", "python-3.0.yaml")
	for path, content := range map[string]string{agent: agentYAML, other: "version: 1\nagent: py-layer\nsyscalls:\n  x86_64:\n    - read\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := []string{py, "-I", "-S", "-c", "print(1)"}
	code, stdout, stderr := runAgentVerb(t, append([]string{"check", "-b", agent, "--"}, cmd...)...)
	if code != ExitViolation || !strings.Contains(stdout, "Unrecorded environment: nobody has recorded the layer") ||
		strings.Contains(stdout, "Outside the baseline") {
		t.Fatalf("check: code %d, want 1 with the unrecorded environment instead of a syscall list\n%s%s", code, stdout, stderr)
	}
	_, after, ok := strings.Cut(stdout, "Record it here with `")
	recordCmd, _, _ := strings.Cut(after, "`")
	if !ok || !strings.HasPrefix(recordCmd, "sysgate record --merge -o "+agent+" -- ") {
		t.Fatalf("no record command in the hint:\n%s", stdout)
	}
	code, _, stderr = runAgentVerb(t, append([]string{"record", "--runs", "1", "--merge", "-o", agent, "--"}, cmd...)...)
	if code != ExitOK {
		t.Fatalf("record: %d\n%s", code, stderr)
	}
	layers, _ := filepath.Glob(filepath.Join(dir, "layers", "*", "python-*.yaml"))
	if len(layers) != 2 {
		t.Fatalf("layers after record: %v, want the other one and this environment's", layers)
	}
	if data, _ := os.ReadFile(agent); string(data) != agentYAML {
		t.Errorf("record changed the agent's file:\n%s", data)
	}
	for _, l := range layers {
		if l == other {
			continue
		}
		data, _ := os.ReadFile(l)
		if !strings.Contains(string(data), "agent: py-layer\nenvironment:") || !strings.Contains(string(data), "    - execve\n") {
			t.Errorf("layer %s:\n%s", l, data)
		}
	}
	if code, stdout, stderr := runAgentVerb(t, append([]string{"check", "-b", agent, "--"}, cmd...)...); code != ExitOK {
		t.Fatalf("check after recording the layer: code %d\n%s%s", code, stdout, stderr)
	}
	// The hint's command again, the layer recorded: a record into the
	// agent's file is its agent's, not the command's base name's.
	if code, _, stderr := runAgentVerb(t, append([]string{"record", "--runs", "1", "--merge", "-o", agent, "--"}, cmd...)...); code != ExitOK {
		t.Fatalf("the same record again: %d\n%s", code, stderr)
	}
	if data, _ := os.ReadFile(agent); !strings.Contains(string(data), "agent: layered\n") {
		t.Errorf("the agent's file after a second record:\n%s", data)
	}
}

// An attack agent in an unrecorded environment writes the missing layer,
// allowing itself everything from the next run on. The run that wrote it
// must fail on it, and the layer must not be left for the next run to pick.
func TestAgentCannotRecordItsOwnLayer(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(agent, []byte("version: 1\nagent: layered\nextends:\n  - layers/{os}/python-{python}.yaml\nsyscalls:\n  x86_64:\n    - write\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// What the agent plants: every syscall it will ever want.
	plant := "import os, sys\np = sys.argv[1]\nos.makedirs(os.path.dirname(p), exist_ok=True)\n" +
		"open(p, 'w').write('version: 1\\nagent: evil\\nsyscalls:\\n  x86_64:\\n    - ptrace: mine now\\n')\n"
	script := filepath.Join(dir, "plant.py")
	if err := os.WriteFile(script, []byte(plant), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := runAgentVerb(t, "check", "-b", agent, "--format", "json", "--", py, "-I", "-S", "-c", "pass")
	_, after, _ := strings.Cut(stdout, `"unrecorded": [`)
	_, after, _ = strings.Cut(after, `"path": "`)
	layer, _, ok := strings.Cut(after, `"`)
	if !ok {
		t.Fatalf("no unrecorded layer in the result:\n%s", stdout)
	}
	code, stdout, stderr := runAgentVerb(t, "check", "-b", agent, "--allow-agent-failure", "--", py, "-I", "-S", script, layer)
	if code != ExitViolation {
		t.Fatalf("check of the planting agent: code %d, want 1\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(layer); err == nil && !strings.Contains(stdout, "the agent modified its own baseline "+layer) {
		t.Fatalf("the agent planted %s and the report does not say so:\n%s%s", layer, stdout, stderr)
	}
}
