package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// pyenvShims is the shims directory of this machine's pyenv, with a
// Python version pyenv can start from it.
func pyenvShims(t *testing.T) string {
	t.Helper()
	pyenv := testutil.RequireCommand(t, "pyenv", "the shim specs run python3 through a real pyenv shim")
	out, err := exec.Command(pyenv, "root").Output()
	if err != nil {
		t.Fatalf("pyenv root: %v", err)
	}
	shims := filepath.Join(strings.TrimSpace(string(out)), "shims")
	testutil.RequireFile(t, filepath.Join(shims, "python3"), "pyenv has no python3 shim (pyenv install 3.11 && pyenv rehash)")
	return shims
}

// shimAgent is "python3 agent.py" in a fresh directory, python3 found on
// a PATH that starts with pyenv's shims, as a pyenv user's shell has it.
func shimAgent(t *testing.T, shims string) Agent {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.py"), []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Agent{Command: []string{"python3", "agent.py"}, Dir: dir,
		Env: []string{"PATH=" + shims + ":/usr/bin:/bin", "HOME=" + os.Getenv("HOME")}}
}

// TestShimResolvedBeforeTheRun: an agent started through pyenv's python3
// shim runs the interpreter pyenv names, on both backends, with and
// without a PID namespace: the run lists that interpreter and the
// agent's script, and no shim, pyenv script or shell.
func TestShimResolvedBeforeTheRun(t *testing.T) {
	shims := pyenvShims(t)
	agent := shimAgent(t, shims)
	want, err := exec.Command(filepath.Join(filepath.Dir(shims), "libexec", "pyenv"), "which", "python3").Output()
	if err != nil {
		t.Fatalf("pyenv which python3: %v", err)
	}
	interp := strings.TrimSpace(string(want))
	script := filepath.Join(agent.Dir, "agent.py")
	wantPrograms := []string{realPath(t, interp), script}
	slices.Sort(wantPrograms)
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		for _, pidns := range []bool{true, false} {
			opts := []Option{WithMode(baseline.ModeRecord), WithBackend(backend)}
			if !pidns {
				opts = append(opts, WithoutPIDNamespace())
			}
			r := mustRun(t, agent, opts...)
			got := programPaths(r)
			slices.Sort(got)
			if !slices.Equal(got, wantPrograms) {
				t.Errorf("%s, pidns %v: programs %q, want exactly %q", backend, pidns, got, wantPrograms)
			}
			if r.Shim == nil || r.Shim.Manager != "pyenv" || r.Shim.Interpreter != interp || r.Shim.Shim != filepath.Join(shims, "python3") {
				t.Errorf("%s, pidns %v: shim %+v, want pyenv's resolved to %s", backend, pidns, r.Shim, interp)
			}
			if !slices.Equal(r.Command, agent.Command) {
				t.Errorf("result command %q, want the caller's %q", r.Command, agent.Command)
			}
		}
	}
}

// TestShimKept: WithoutShimResolution runs the shim as it is, and the run
// holds pyenv's own programs (what the resolution takes away).
func TestShimKept(t *testing.T) {
	shims := pyenvShims(t)
	r := mustRun(t, shimAgent(t, shims), WithMode(baseline.ModeRecord), WithoutShimResolution())
	if _, ok := programOf(r, filepath.Join(shims, "python3")); !ok || r.Shim != nil {
		t.Errorf("programs %q, shim %+v: want the shim run and no resolution", programPaths(r), r.Shim)
	}
}

// TestShimManagerFails: when the manager's which fails (the version a
// project pins is not installed), the shim runs as it is, and the
// resolution says why (ci's TestShimNote: and what to do).
func TestShimManagerFails(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "pyenv")
	tmpl, err := os.ReadFile("../internal/envprobe/testdata/pyenv-shim")
	if err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(root, "shims", "python3")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(shim, strings.ReplaceAll(string(tmpl), "@PYENV_ROOT@", root))
	write(filepath.Join(root, "libexec", "pyenv"), "#!/bin/sh\n[ \"$1\" = which ] && { echo \"pyenv: version \\`9.9' is not installed\" >&2; exit 1; }\nexec /bin/true\n")
	var c runConfig
	agent := Agent{Command: []string{shim, "x.py"}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
	got, res := c.resolveShim(t.Context(), agent)
	if res == nil || res.Interpreter != "" || !strings.Contains(res.Problem, "version `9.9' is not installed") {
		t.Fatalf("resolution %+v, want the manager's error", res)
	}
	if !slices.Equal(got.Command, agent.Command) {
		t.Errorf("command %q, want the shim kept", got.Command)
	}
	if res.Manager != "pyenv" || res.Shim != shim {
		t.Errorf("resolution %+v, want pyenv's shim %s (the fix ci.ShimNote names)", res, shim)
	}
	// A manager that names a path that is itself a shim is not followed.
	write(filepath.Join(root, "libexec", "pyenv"), "#!/bin/sh\necho "+shim+"\n")
	if _, res := c.resolveShim(t.Context(), agent); res == nil || res.Interpreter != "" || !strings.Contains(res.Problem, "another shim") {
		t.Errorf("resolution %+v, want a shim named refused", res)
	}
}
