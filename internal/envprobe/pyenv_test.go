package envprobe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPyenvShim follows a pyenv shim (testdata/pyenv-shim: pyenv
// 2.6.30's /root/.pyenv/shims/python3, MIT, with its root replaced) in a
// fake PYENV_ROOT whose "pythons" are hard links of one Go program: each
// is identified as go, and its path tells which one pyenv's selection
// picked.
func TestPyenvShim(t *testing.T) {
	tmpl, err := os.ReadFile("testdata/pyenv-shim")
	if err != nil {
		t.Fatal(err)
	}
	prog := goBinary(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "pyenv")
	shims := filepath.Join(root, "shims")
	writeFile(t, filepath.Join(shims, "python3"), strings.ReplaceAll(string(tmpl), "@PYENV_ROOT@", root), 0o755)
	want := map[string]Runtime{}
	install := func(name, path string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(prog, path); err != nil {
			t.Fatal(err)
		}
		rt, ok := Identify(path)
		if !ok {
			t.Fatalf("%s: not identified", path)
		}
		want[name] = rt
	}
	for _, v := range []string{"3.11.2", "3.11.10", "3.12.1", "myenv"} {
		install(v, filepath.Join(root, "versions", v, "bin", "python3"))
	}
	install("system", filepath.Join(dir, "sysbin", "python3"))
	writeFile(t, filepath.Join(root, "versions", "3.9.1", "bin", "python3"), "not executable", 0o644)

	work := filepath.Join(dir, "project", "src")
	writeFile(t, filepath.Join(dir, "project", ".python-version"), "# pinned\n\n3.11.2 trailing words\n", 0o644)
	elsewhere := filepath.Join(dir, "elsewhere")
	writeFile(t, filepath.Join(elsewhere, ".python-version"), "../../evil\nmyenv\n", 0o644)
	noLocal := filepath.Join(dir, "nolocal")
	if err := os.MkdirAll(noLocal, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "version"), "3.12.1\n", 0o644)

	path := "PATH=" + shims + ":" + filepath.Join(dir, "sysbin") + ":/usr/bin:/bin"
	for _, tc := range []struct {
		name string
		env  []string
		dir  string
		want string // a key of want, "" for nothing
	}{
		{"PYENV_VERSION", []string{path, "PYENV_VERSION=3.12.1"}, work, "3.12.1"},
		{"PYENV_VERSION skips what is not installed", []string{path, "PYENV_VERSION=2.7.18:3.11.2"}, work, "3.11.2"},
		{"a prefix means the latest", []string{path, "PYENV_VERSION=3.11"}, work, "3.11.10"},
		{"python- prefix", []string{path, "PYENV_VERSION=python-3.12.1"}, work, "3.12.1"},
		{"system", []string{path, "PYENV_VERSION=system"}, work, "system"},
		{"not executable: system", []string{path, "PYENV_VERSION=3.9.1"}, work, "system"},
		{".python-version in a parent", []string{path}, work, "3.11.2"},
		{"PYENV_DIR first, paths ignored", []string{path, "PYENV_DIR=" + elsewhere}, work, "myenv"},
		{"$PYENV_ROOT/version", []string{path}, noLocal, "3.12.1"},
		{"nothing installed, no system", []string{"PATH=" + shims, "PYENV_VERSION=2.7.18"}, work, ""},
	} {
		got := CommandRuntimes([]string{"python3", "x.py"}, tc.env, tc.dir)
		var w []Runtime
		if tc.want != "" {
			w = []Runtime{want[tc.want]}
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: got %+v, want %+v (%s)", tc.name, got, w, tc.want)
		}
	}

	// Without its exec line a script is no shim: bash is no runtime.
	writeFile(t, filepath.Join(dir, "fake", "python3"), "#!/usr/bin/env bash\nexport PYENV_ROOT=\""+root+"\"\nexec python3 \"$@\"\n", 0o755)
	if got := CommandRuntimes([]string{"python3"}, []string{"PATH=" + filepath.Join(dir, "fake") + ":/usr/bin:/bin", "PYENV_VERSION=3.12.1"}, work); got != nil {
		t.Errorf("a non-shim script: %+v", got)
	}
}

func TestCompareVersions(t *testing.T) {
	in := []string{"3.11.10", "3.9.18", "3.11.2", "3.11", "3.10.13"}
	slices.SortFunc(in, compareVersions)
	if want := []string{"3.9.18", "3.10.13", "3.11", "3.11.2", "3.11.10"}; !slices.Equal(in, want) {
		t.Errorf("sorted %v, want %v", in, want)
	}
}
