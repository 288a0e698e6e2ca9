package envprobe

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/testutil"
)

// builtGo is a tiny static Go program built once per test process.
var builtGo = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "envprobe-go-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command(goCommand(), "build", "-o", "prog", "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return filepath.Join(dir, "prog"), nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if p, err := builtGo(); err == nil {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	out, err := exec.Command("/usr/local/go/bin/go", "env", "GOROOT").Output()
	if err != nil {
		return "/usr/local/go/bin/go"
	}
	return filepath.Join(strings.TrimSpace(string(out)), "bin", "go")
}

// goBinary copies the built program into the test's own directory, so a
// test may rename or overwrite it.
func goBinary(t *testing.T) string {
	t.Helper()
	src, err := builtGo()
	if err != nil {
		t.Fatalf("build a Go program: %v", err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

func goVersionOfCommand(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(goCommand(), "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "go")
}

func resolved(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err = filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pythons are the CPython executables on this machine: the python3 the
// project's set-up installs, plus Debian's and pyenv's when present (this
// development machine has 2.7, 3.6 to 3.13), each once.
func pythons(t *testing.T) []string {
	t.Helper()
	found := []string{resolved(t, testutil.Python(t))}
	globs, _ := filepath.Glob("/usr/bin/python[23].*")
	more, _ := filepath.Glob("/root/.pyenv/versions/*/bin/python[23].*")
	for _, p := range append(globs, more...) {
		if _, ok := pythonPrefix(filepath.Base(p)); !ok {
			continue // python3.11-config
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(found, r) && isExecutableFile(r) {
			found = append(found, r)
		}
	}
	return found
}

// pythonSaysVersion runs the interpreter (the test may; the probe never
// does): "Python 3.11.7" on stdout, or stderr for Python 2.
func pythonSaysVersion(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.Command(exe, "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("%s -V: %v: %s", exe, err, out)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "Python ")
	if !ok {
		t.Fatalf("%s -V said %q", exe, out)
	}
	return v
}

func TestIdentifyPython(t *testing.T) {
	for _, exe := range pythons(t) {
		want := Runtime{Name: "python", Version: pythonSaysVersion(t, exe), Path: exe}
		got, ok := Identify(exe)
		if !ok || got != want {
			t.Errorf("Identify(%s) = %+v, %v; want %+v", exe, got, ok, want)
		} else {
			t.Logf("%s: %s", exe, got.Version)
		}
	}
	// Through a symlink (python3 -> python3.11): the resolved path.
	link := filepath.Join(t.TempDir(), "python3")
	exe := pythons(t)[0]
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	if got, ok := Identify(link); !ok || got.Path != exe {
		t.Errorf("Identify(symlink to %s) = %+v, %v", exe, got, ok)
	}
}

// TestPythonVersionString checks the fallback for CPython before 3.11 on
// the interpreters that also have Py_Version: both ways must agree, on
// Debian's standalone "3.11.2" and on pyenv's, where the linker merged
// PY_VERSION into the tail of "/root/.pyenv/versions/3.11.7".
func TestPythonVersionString(t *testing.T) {
	checked := 0
	for _, exe := range pythons(t) {
		f, err := elf.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		files := []*elf.File{f}
		if lib := openNeeded(f, exe, "libpython", ""); lib != nil {
			files = append(files, lib)
		}
		prefix, _ := pythonPrefix(filepath.Base(exe))
		var sym, str string
		for _, file := range files {
			if v, ok := pyVersionSymbol(file); ok && sym == "" {
				sym = v
			}
			if v := pyVersionString(file, prefix); v != "" && str == "" {
				str = v
			}
		}
		for _, file := range files {
			file.Close()
		}
		if sym == "" {
			continue // before 3.11: TestIdentifyPython covered the string
		}
		checked++
		if str != sym {
			t.Errorf("%s: PY_VERSION string %q, Py_Version %q", exe, str, sym)
		}
	}
	if checked == 0 {
		t.Fatal("no CPython 3.11+ here to compare the two ways on")
	}
}

func TestIdentifyNode(t *testing.T) {
	node := testutil.RequireCommand(t, "node", "the MCP suites run on the system's node")
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := Runtime{Name: "node", Version: strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), Path: resolved(t, node)}
	if got, ok := Identify(node); !ok || got != want {
		t.Errorf("Identify(%s) = %+v, %v; want %+v", node, got, ok, want)
	}
}

// Debian's and Ubuntu's nodejs is a small executable that links
// libnode.so.N, which holds the version. In a root it is found in the
// root's library directories, and from the host's tree it is not found
// there.
func TestIdentifyNodeLinkingLibnode(t *testing.T) {
	root, bare := t.TempDir(), t.TempDir()
	writeFakeELF(t, filepath.Join(root, "usr/lib/x86_64-linux-gnu/libnode.so.9999"), elf.EM_X86_64, "",
		fakeSection{".rodata", []byte("\x00https://nodejs.org/download/release/v20.19.2/node-v20.19.2.tar.gz\x00")})
	for _, dir := range []string{root, bare} {
		writeFakeELF(t, filepath.Join(dir, "usr/bin/node"), elf.EM_X86_64, "", dynamicNeeding("libnode.so.9999", "libc.so.6")...)
	}
	want := Runtime{Name: "node", Version: "20.19.2", Path: "/usr/bin/node"}
	if got, ok := IdentifyIn(root, "/usr/bin/node"); !ok || got != want {
		t.Errorf("IdentifyIn(%s, /usr/bin/node) = %+v, %v; want %+v", root, got, ok, want)
	}
	if got, ok := Identify(filepath.Join(root, "usr/bin/node")); ok {
		t.Errorf("Identify of the root's node from the host's tree = %+v: its libnode is not in the host's directories", got)
	}
	if got, ok := IdentifyIn(bare, "/usr/bin/node"); ok {
		t.Errorf("a node without its libnode = %+v, want no runtime (a name alone is no proof)", got)
	}
}

func TestIdentifyGo(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := Runtime{Name: "go", Version: strings.TrimPrefix(runtime.Version(), "go"), Path: resolved(t, self)}
	if got, ok := Identify(self); !ok || got != want {
		t.Errorf("Identify(test binary) = %+v, %v; want %+v", got, ok, want)
	}
	// A Go program is go whatever its name, even one that says python.
	prog := goBinary(t)
	named := filepath.Join(filepath.Dir(prog), "python3.11")
	if err := os.Rename(prog, named); err != nil {
		t.Fatal(err)
	}
	want = Runtime{Name: "go", Version: goVersionOfCommand(t), Path: named}
	if got, ok := Identify(named); !ok || got != want {
		t.Errorf("Identify(%s) = %+v, %v; want %+v", named, got, ok, want)
	}
}

func TestIdentifyNotRuntime(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sh, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/bin/sh",
		write("python3", []byte("#!/bin/sh\necho Python 3.11.7\n")),
		write("python3.12", sh), // a name alone is no proof
		write("node", sh),
		write("nodejs", nil),
		write("python3.11", []byte("\x7fELF")),
		write("python2.7", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00")),
		dir,
		filepath.Join(dir, "missing"),
	} {
		if rt, ok := Identify(path); ok {
			t.Errorf("Identify(%s) = %+v, want not a runtime", path, rt)
		}
	}
}

// TestIdentifyCache: a file replaced in place (new size and mtime) is
// read again, not answered from the cache.
func TestIdentifyCache(t *testing.T) {
	prog := goBinary(t)
	if _, ok := Identify(prog); !ok {
		t.Fatalf("Identify(%s): not a runtime", prog)
	}
	key, err := statFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := identifyCache.get(key); !ok {
		t.Fatalf("no cache entry for %+v", key)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(prog, later, later); err != nil {
		t.Fatal(err)
	}
	if rt, ok := Identify(prog); ok {
		t.Errorf("after overwriting: %+v, want not a runtime", rt)
	}
}

// BenchmarkIdentify is a first look at the python behind python3 (here
// pyenv's: a 17 KB executable and its 23 MB libpython); Cached is every
// later call of a run.
func BenchmarkIdentify(b *testing.B) {
	py, err := testutil.PythonExecutable()
	if err != nil {
		b.Fatal(err)
	}
	path, err := filepath.EvalSymlinks(py)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("python", func(b *testing.B) {
		for b.Loop() {
			if _, ok, _ := identify(path, ""); !ok {
				b.Fatal("not identified")
			}
		}
	})
	if node, err := exec.LookPath("node"); err == nil {
		node, _ = filepath.EvalSymlinks(node)
		b.Run("node", func(b *testing.B) {
			for b.Loop() {
				if _, ok, _ := identify(node, ""); !ok {
					b.Fatal("not identified")
				}
			}
		})
	}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, ok := Identify(py); !ok {
				b.Fatal("not identified")
			}
		}
	})
}

// TestIdentifyConcurrent: the harness identifies programs from several
// runs at once (go test -race covers the caches).
func TestIdentifyConcurrent(t *testing.T) {
	py := pythons(t)[0]
	want, ok := Identify(py)
	if !ok {
		t.Fatal("python not identified")
	}
	wantLibc := Libc(py)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for range 8 {
		wg.Go(func() {
			if got, ok := Identify(py); !ok || got != want {
				errs <- fmt.Sprintf("Identify: %+v, %v", got, ok)
			}
			if got := Libc(py); got != wantLibc {
				errs <- "Libc: " + got
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestPythonPrefix(t *testing.T) {
	for _, tc := range []struct {
		base, prefix string
		ok           bool
	}{
		{"python3.11", "3.11.", true}, {"python3", "3.", true}, {"python", "", true},
		{"python3.6m", "3.6.", true}, {"python3.13t", "3.13.", true}, {"python2.7", "2.7.", true},
		{"python3.11-config", "", false}, {"python3-x", "", false}, {"pythonw", "", false},
		{"ipython3", "", false}, {"pypy3.10", "", false},
	} {
		if prefix, ok := pythonPrefix(tc.base); prefix != tc.prefix || ok != tc.ok {
			t.Errorf("pythonPrefix(%q) = %q, %v; want %q, %v", tc.base, prefix, ok, tc.prefix, tc.ok)
		}
	}
}
