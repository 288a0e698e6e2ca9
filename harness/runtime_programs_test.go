package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// debianPython is the distribution's interpreter: another build, and
// another patch version, than pyenv's.
const debianPython = "/usr/bin/python3.11"

// pythonCode runs a child interpreter the way agents do (sys.executable),
// so the programs gate judges an exec of the runtime, not only the start.
const pythonCode = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"

// recordThroughPyenv records pythonCode started as "python3" through
// pyenv's shim and writes its baseline: the interpreter is written as
// {python}, no pyenv path is.
func recordThroughPyenv(t *testing.T) string {
	t.Helper()
	agent := shimAgent(t, pyenvShims(t))
	agent.Command = []string{"python3", "-c", pythonCode}
	r := mustRun(t, agent, WithMode(baseline.ModeRecord))
	path := filepath.Join(t.TempDir(), "py.yaml")
	if _, err := baseline.WriteRecorded(path, r.Observed, baseline.RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	requireOnlyPlaceholder(t, path)
	return path
}

// requireOnlyPlaceholder fails unless the baseline at path lists exactly
// one program: {python}.
func requireOnlyPlaceholder(t *testing.T, path string) {
	t.Helper()
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if progs := p.Programs(); len(progs) != 1 || progs[0].Runtime != "python" {
		data, _ := os.ReadFile(path)
		t.Fatalf("the baseline does not name the interpreter as {python}, and only it:\n%s", data)
	}
}

// TestRuntimePlaceholderHoldsForAnotherBuild: a baseline recorded with
// pyenv's 3.11.7 holds, by its {python} entry, for Debian's 3.11.2 run by
// root and by another user: no program is a violation, and the text
// report names the version change as drift.
func TestRuntimePlaceholderHoldsForAnotherBuild(t *testing.T) {
	testutil.RequireFile(t, debianPython, "the drift spec checks with the distribution's python3.11")
	path := recordThroughPyenv(t)
	dir, err := os.MkdirTemp("", "sysgate-agent-dir") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the other user starts in it
		t.Fatal(err)
	}
	agent := Agent{Command: []string{debianPython, "-c", pythonCode}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
	for _, user := range []struct {
		name string
		opts []Option
	}{{"root", nil}, {"nobody", []Option{WithUser(65534, 65534)}}} {
		t.Run(user.name, func(t *testing.T) {
			r := mustRun(t, agent, append([]Option{WithBaselines(path), WithMode(baseline.ModeCheck)}, user.opts...)...)
			if r.ExitStatus != 0 || len(r.ProgramViolations) > 0 {
				t.Errorf("exit %d; program violations: %v", r.ExitStatus, r.ProgramViolations)
			}
			if len(r.UnusedPrograms) > 0 {
				t.Errorf("unused programs: %+v", r.UnusedPrograms)
			}
			var drift string
			if r.Drift != nil {
				drift = baseline.DescribeChanges(r.Drift.Changes)
			}
			if !strings.Contains(drift, "python") || !strings.Contains(drift, "3.11.7") || !strings.Contains(drift, "3.11.2") {
				t.Errorf("drift %q does not name python 3.11.7 → 3.11.2 (changes %+v)", drift, r.Drift)
			}
		})
	}
}

// TestRuntimePlaceholderIsTheCommandsOnly: {python} stands for the
// interpreter the caller's command starts. An agent started with
// Debian's python that runs pyenv's runs a program outside the baseline.
func TestRuntimePlaceholderIsTheCommandsOnly(t *testing.T) {
	testutil.RequireFile(t, debianPython, "the spec starts the distribution's python3.11")
	path := recordThroughPyenv(t)
	shims := pyenvShims(t)
	pyenv := realPath(t, filepath.Join(filepath.Dir(shims), "versions", "3.11.7", "bin", "python3.11"))
	code := "import subprocess; subprocess.run([" + pythonQuote(pyenv) + ", '-c', 'pass'], check=True)"
	r := mustRun(t, Agent{Command: []string{debianPython, "-c", code}, Dir: t.TempDir()}, WithBaselines(path), WithMode(baseline.ModeCheck))
	if len(r.ProgramViolations) != 1 || r.ProgramViolations[0].Path != pyenv {
		t.Errorf("program violations %v, want exactly pyenv's %s", r.ProgramViolations, pyenv)
	}
}

// TestRuntimePlaceholderInEnforce: enforce's exec gate and Landlock see
// the placeholder bound: the agent's child interpreter runs.
func TestRuntimePlaceholderInEnforce(t *testing.T) {
	testutil.RequireFile(t, debianPython, "the spec starts the distribution's python3.11")
	dir := t.TempDir()
	agent := Agent{Command: []string{debianPython, "-c", pythonCode}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
	r := mustRun(t, agent, WithMode(baseline.ModeRecord))
	path := filepath.Join(t.TempDir(), "py.yaml")
	if _, err := baseline.WriteRecorded(path, r.Observed, baseline.RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	requireOnlyPlaceholder(t, path)
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		r := mustRun(t, agent, WithBaselines(path), WithMode(baseline.ModeEnforce), WithBackend(backend))
		if r.ExitStatus != 0 || len(r.ProgramViolations) > 0 {
			t.Errorf("%s: exit %d, signal %q, program violations %v", backend, r.ExitStatus, r.Signal, r.ProgramViolations)
		}
	}
}

// pythonQuote writes s as a Python string literal.
func pythonQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
