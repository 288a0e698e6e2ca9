package envprobe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rbenvShim is rbenv 1.2's shim (nodenv's is the same with NODENV), with
// its root replaced.
const rbenvShim = `#!/usr/bin/env bash
set -e
[ -n "$RBENV_DEBUG" ] && set -x

program="${0##*/}"

export RBENV_ROOT="@ROOT@"
exec "/usr/lib/rbenv/libexec/rbenv" exec "$program" "$@"
`

// TestFindShim tells each manager's shim by its content or its link, and
// leaves interpreters and other scripts alone.
func TestFindShim(t *testing.T) {
	tmpl, err := os.ReadFile("testdata/pyenv-shim")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pyRoot := filepath.Join(dir, "pyenv")
	writeFile(t, filepath.Join(pyRoot, "shims", "python3"), strings.ReplaceAll(string(tmpl), "@PYENV_ROOT@", pyRoot), 0o755)
	rbRoot := filepath.Join(dir, "rbenv")
	writeFile(t, filepath.Join(rbRoot, "shims", "ruby"), strings.ReplaceAll(rbenvShim, "@ROOT@", rbRoot), 0o755)
	ndRoot := filepath.Join(dir, "nodenv")
	nodenv := strings.NewReplacer("RBENV", "NODENV", "rbenv", "nodenv", "@ROOT@", ndRoot).Replace(rbenvShim)
	writeFile(t, filepath.Join(ndRoot, "shims", "node"), nodenv, 0o755)
	asdf := writeFile(t, filepath.Join(dir, "asdf", "bin", "asdf"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(dir, "asdf", "shims", "node"), "#!/usr/bin/env bash\n# asdf-plugin: nodejs 20.11.0\nexec "+asdf+` exec "node" "$@" # asdf_allow: ' asdf '`+"\n", 0o755)
	writeFile(t, filepath.Join(dir, "asdf", "shims", "npm"), "#!/usr/bin/env bash\n# asdf-plugin: nodejs 20.11.0\nexec asdf exec \"npm\" \"$@\"\n", 0o755)
	mise := writeFile(t, filepath.Join(dir, "mise", "bin", "mise"), "\x7fELF", 0o755)
	symlink(t, mise, filepath.Join(dir, "mise", "shims", "python3"))
	symlink(t, mise, filepath.Join(dir, "mise", "shims", "mise"))
	voltaShim := writeFile(t, filepath.Join(dir, "volta", "bin", "volta-shim"), "\x7fELF", 0o755)
	volta := writeFile(t, filepath.Join(dir, "volta", "bin", "volta"), "\x7fELF", 0o755)
	symlink(t, voltaShim, filepath.Join(dir, "volta", "bin", "node"))
	// Look-alikes: a root the exec line does not name, a plain script.
	writeFile(t, filepath.Join(dir, "odd", "python3"), strings.Replace(strings.ReplaceAll(string(tmpl), "@PYENV_ROOT@", pyRoot), "PYENV_ROOT=", "RBENV_ROOT=", 1), 0o755)
	writeFile(t, filepath.Join(dir, "plain", "python3"), "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 0o755)

	path := "PATH=" + filepath.Join(dir, "asdf", "bin") + ":/usr/bin:/bin"
	for _, tc := range []struct {
		cmd      string
		manager  string
		program  string
		which    []string
		env      []string
		notAShim bool
	}{
		{cmd: filepath.Join(pyRoot, "shims", "python3"), manager: "pyenv", program: "python3",
			which: []string{filepath.Join(pyRoot, "libexec", "pyenv"), "which", "python3"}, env: []string{"PYENV_ROOT=" + pyRoot}},
		{cmd: filepath.Join(rbRoot, "shims", "ruby"), manager: "rbenv", program: "ruby",
			which: []string{"/usr/lib/rbenv/libexec/rbenv", "which", "ruby"}, env: []string{"RBENV_ROOT=" + rbRoot}},
		{cmd: filepath.Join(ndRoot, "shims", "node"), manager: "nodenv", program: "node",
			which: []string{"/usr/lib/nodenv/libexec/nodenv", "which", "node"}, env: []string{"NODENV_ROOT=" + ndRoot}},
		{cmd: filepath.Join(dir, "asdf", "shims", "node"), manager: "asdf", program: "node", which: []string{asdf, "which", "node"}},
		{cmd: filepath.Join(dir, "asdf", "shims", "npm"), manager: "asdf", program: "npm", which: []string{asdf, "which", "npm"}},
		{cmd: filepath.Join(dir, "mise", "shims", "python3"), manager: "mise", program: "python3", which: []string{mise, "which", "python3"}},
		{cmd: filepath.Join(dir, "volta", "bin", "node"), manager: "volta", program: "node", which: []string{volta, "which", "node"}},
		{cmd: filepath.Join(dir, "mise", "shims", "mise"), notAShim: true},
		{cmd: filepath.Join(dir, "odd", "python3"), notAShim: true},
		{cmd: filepath.Join(dir, "plain", "python3"), notAShim: true},
		{cmd: "/bin/sh", notAShim: true},
		{cmd: "no-such-program", notAShim: true},
	} {
		s, ok := FindShim([]string{tc.cmd, "agent.py"}, []string{path}, dir)
		if tc.notAShim {
			if ok {
				t.Errorf("%s: taken for %s's shim", tc.cmd, s.Manager)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not taken for a shim", tc.cmd)
			continue
		}
		if s.Manager != tc.manager || s.Program != tc.program || s.Path != tc.cmd || !slices.Equal(s.Which, tc.which) || !slices.Equal(s.Env, tc.env) {
			t.Errorf("%s: got %+v, want manager %s program %s which %q env %q", tc.cmd, s, tc.manager, tc.program, tc.which, tc.env)
		}
	}
	// A shim found on PATH, as the launcher finds it.
	if s, ok := FindShim([]string{"python3"}, []string{"PATH=" + filepath.Join(pyRoot, "shims")}, dir); !ok || s.Manager != "pyenv" {
		t.Errorf("python3 on PATH: %+v %v, want pyenv's shim", s, ok)
	}
}

// TestShimExecPath: a version the manager installed has its bin directory
// put first on PATH; the system's does not.
func TestShimExecPath(t *testing.T) {
	s := Shim{Manager: "pyenv", Root: "/root/.pyenv"}
	for interp, want := range map[string]string{
		"/root/.pyenv/versions/3.11.7/bin/python3": "/root/.pyenv/versions/3.11.7/bin",
		"/usr/bin/python3":                         "",
		"/opt/python/bin/python3":                  "",
	} {
		if got := s.ExecPath(interp); got != want {
			t.Errorf("ExecPath(%s) = %q, want %q", interp, got, want)
		}
	}
	if got := (Shim{Manager: "asdf"}).ExecPath("/home/u/.asdf/installs/nodejs/20/bin/node"); got != "/home/u/.asdf/installs/nodejs/20/bin" {
		t.Errorf("asdf ExecPath = %q", got)
	}
}
