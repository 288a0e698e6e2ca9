package envprobe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestCommandRuntimesPython3 asks for what "python3" starts with this
// process's environment: the interpreter testutil finds by running it. On
// this machine python3 on PATH is a pyenv shim, so the shim is followed.
func TestCommandRuntimesPython3(t *testing.T) {
	want, ok := Identify(testutil.Python(t))
	if !ok {
		t.Fatal("python3 not identified")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got := CommandRuntimes([]string{"python3", "-c", "pass"}, os.Environ(), wd)
	if !slices.Equal(got, []Runtime{want}) {
		t.Errorf("CommandRuntimes(python3) = %+v, want %+v", got, want)
	}
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestCommandRuntimes(t *testing.T) {
	py := pythons(t)[0]
	pyRT, ok := Identify(py)
	if !ok {
		t.Fatal("python not identified")
	}
	goProg := goBinary(t)
	goRT, ok := Identify(goProg)
	if !ok {
		t.Fatal("Go program not identified")
	}
	dir := t.TempDir()
	bin, other := filepath.Join(dir, "bin"), filepath.Join(dir, "other")
	symlink(t, py, filepath.Join(bin, "python3"))
	symlink(t, goProg, filepath.Join(other, "python3"))
	envPath := "/usr/bin:/bin" // for env itself; each case sets its own PATH
	work := filepath.Join(dir, "work")
	writeFile(t, filepath.Join(work, "env.py"), "#!/usr/bin/env python3\nprint()\n", 0o755)
	writeFile(t, filepath.Join(work, "direct.py"), "#!"+py+" -u\n", 0o755)
	writeFile(t, filepath.Join(work, "split.py"), "#!/usr/bin/env -S PATH="+other+" python3 -u\n", 0o755)
	writeFile(t, filepath.Join(work, "spaces.py"), "#!  /usr/bin/env   python3 -u  \n", 0o755)
	writeFile(t, filepath.Join(work, "nested"), "#!"+filepath.Join(work, "env.py")+"\n", 0o755)
	writeFile(t, filepath.Join(work, "shell.sh"), "#!/bin/sh\nexec python3\n", 0o755)
	writeFile(t, filepath.Join(work, "loop"), "#!"+filepath.Join(work, "loop")+"\n", 0o755)
	writeFile(t, filepath.Join(work, "noexec.py"), "#!/usr/bin/env python3\n", 0o644)
	writeFile(t, filepath.Join(work, "missing-interp"), "#!/nonexistent/python3\n", 0o755)
	writeFile(t, filepath.Join(work, "binary"), "\x7fELF#!", 0o755)

	withPath := func(p string) []string { return []string{"HOME=/nonexistent", "PATH=" + p} }
	for _, tc := range []struct {
		name string
		argv []string
		env  []string
		want []Runtime
	}{
		{"name on PATH", []string{"python3", "x.py"}, withPath(bin + ":" + envPath), []Runtime{pyRT}},
		{"first PATH entry wins", []string{"python3"}, withPath(other + ":" + bin), []Runtime{goRT}},
		{"last PATH= in env wins", []string{"python3"}, append(withPath(bin), "PATH="+other), []Runtime{goRT}},
		{"relative PATH entry against dir", []string{"python3"}, withPath("../other"), []Runtime{goRT}},
		{"absolute argv[0]", []string{py}, nil, []Runtime{pyRT}},
		{"relative argv[0]", []string{"./env.py"}, withPath(bin + ":" + envPath), []Runtime{pyRT}},
		{"#! through env", []string{"env.py"}, withPath(work + ":" + bin + ":" + envPath), []Runtime{pyRT}},
		{"#! direct with argument", []string{"./direct.py"}, nil, []Runtime{pyRT}},
		{"#! env -S with PATH=", []string{"./split.py"}, withPath(bin + ":" + envPath), []Runtime{goRT}},
		{"#! with blanks", []string{"./spaces.py"}, withPath(bin + ":" + envPath), []Runtime{pyRT}},
		{"#! of a script", []string{"./nested"}, withPath(bin + ":" + envPath), []Runtime{pyRT}},
		{"env as the command", []string{"env", "-u", "X", "PATH=" + other, "python3", "x.py"}, withPath(envPath), []Runtime{goRT}},
		{"env -- program", []string{"env", "--", "python3"}, withPath(bin + ":" + envPath), []Runtime{pyRT}},
		{"a shell script runs no known runtime", []string{"./shell.sh"}, withPath(bin + ":" + envPath), nil},
		{"a #! loop ends", []string{"./loop"}, nil, nil},
		{"not executable", []string{"./noexec.py"}, withPath(bin + ":" + envPath), nil},
		{"interpreter missing", []string{"./missing-interp"}, nil, nil},
		{"not found", []string{"python3"}, withPath(filepath.Join(dir, "empty")), nil},
		{"no PATH: the launcher's default", []string{"nonexistent-sysgate-probe"}, nil, nil},
		{"broken ELF", []string{"./binary"}, nil, nil},
		{"empty argv", nil, nil, nil},
		{"empty argv[0]", []string{""}, nil, nil},
		{"env without a program", []string{"env", "-S"}, withPath(envPath), nil},
	} {
		got := CommandRuntimes(tc.argv, tc.env, work)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: CommandRuntimes(%q) = %+v, want %+v", tc.name, tc.argv, got, tc.want)
		}
	}
}

func TestShebang(t *testing.T) {
	for _, tc := range []struct{ head, interp, arg string }{
		{"#!/bin/sh\n", "/bin/sh", ""},
		{"#!/usr/bin/env python3\nimport os\n", "/usr/bin/env", "python3"},
		{"#! /usr/bin/python3 -u -E \r\n", "/usr/bin/python3", "-u -E"},
		{"#!/usr/bin/env\tnode\n", "/usr/bin/env", "node"},
		{"#!/bin/sh", "/bin/sh", ""}, // no newline
		{"#!" + strings.Repeat("x", 300), strings.Repeat("x", binprmBuf-2), ""},
	} {
		interp, arg, ok := shebang([]byte(tc.head))
		if !ok || interp != tc.interp || arg != tc.arg {
			t.Errorf("shebang(%q) = %q, %q, %v; want %q, %q", tc.head, interp, arg, ok, tc.interp, tc.arg)
		}
	}
	for _, head := range []string{"", "#", "#!\n", "#!   \n", "\x7fELF", " #!/bin/sh\n", "#!/bin/sh\x00x\n"} {
		if interp, arg, ok := shebang([]byte(head)); ok {
			t.Errorf("shebang(%q) = %q, %q; want none", head, interp, arg)
		}
	}
}
