package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/sysgate/sysgate/internal/testutil"
)

const modulePath = "github.com/sysgate/sysgate"

// TestGoInstallFromCleanModuleCache is the README's install line for real:
// this checkout, served as a module version from a file:// proxy, is built
// by `go install ...@version` with the toolchain go.mod's go directive
// names (not the newer one its toolchain line asks for) into an empty
// module cache, with nothing fetched from the network. A second version
// whose go directive is one patch above that toolchain must be refused,
// so the test can tell the toolchain was really held at the directive.
func TestGoInstallFromCleanModuleCache(t *testing.T) {
	for _, tool := range []string{"git", "gcc", "pkg-config"} {
		testutil.RequireCommand(t, tool, "go install of a cgo module from this checkout's files")
	}
	start := time.Now()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil || mf.Go == nil {
		t.Fatalf("go.mod: no go directive (err %v)", err)
	}
	directive := mf.Go.Version
	toolchain := "go" + directive // the go directive 1.26.0 is the release go1.26.0

	// The shared module cache is the only source: it serves the toolchain
	// (unless the go on PATH is that release) and sysgate's dependencies
	// as a proxy; it was checked against the checksum database when it
	// was filled.
	modcache := goEnv(t, "GOMODCACHE")
	cacheProxy := "file://" + filepath.Join(modcache, "cache", "download")
	tcVersion := "v0.0.1-" + toolchain + "." + runtime.GOOS + "-" + runtime.GOARCH
	switchToolchain := goEnv(t, "GOVERSION") != toolchain
	zip := filepath.Join(modcache, "cache", "download", "golang.org", "toolchain", "@v", tcVersion+".zip")
	if _, err := os.Stat(zip); err != nil && switchToolchain {
		testutil.Unavailable(t, "toolchain", "the "+toolchain+" toolchain (go.mod's go directive) is not in the module cache: "+
			"fetch it once with `GOTOOLCHAIN="+toolchain+" go version` ("+err.Error()+")")
	}

	rev := strings.TrimSpace(output(t, root, nil, "git", "rev-parse", "--short=12", "HEAD"))
	version := "v0.0.0-gotest-" + rev
	raised := "v0.0.0-raised-" + rev
	proxy := t.TempDir()
	files := moduleFiles(t, root)
	serveModule(t, proxy, version, files, gomod)
	raisedGo := nextPatch(t, directive)
	if err := mf.AddGoStmt(raisedGo); err != nil {
		t.Fatal(err)
	}
	raisedMod, err := mf.Format()
	if err != nil {
		t.Fatal(err)
	}
	serveModule(t, proxy, raised, files, raisedMod)

	// A fresh module cache, emptied before t.TempDir removes it: the go
	// command writes it read-only.
	fresh, gobin, work := t.TempDir(), t.TempDir(), t.TempDir()
	env := append(os.Environ(),
		"GOENV=off", // a go env file (this machine's sets GOTOOLCHAIN=local) must not steer this
		"GOFLAGS=",
		"GOWORK=off",
		"GOMODCACHE="+fresh,
		"GOBIN="+gobin,
		"GOTOOLCHAIN="+toolchain,
		"CGO_ENABLED=1",
		// go install pkg@version checks what it downloads against
		// sum.golang.org, not the module's go.sum, and that is out of
		// reach here: checkAgainstGoSum does it with go.sum afterwards.
		"GOSUMDB=off",
	)
	t.Cleanup(func() {
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = append(env, "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache in %s: %v\n%s", fresh, err, out)
		}
	})

	// The go command switches toolchains before anything else, and checks
	// the toolchain module against the checksum database each time it
	// switches, GOSUMDB=off or not, unless GOPROXY is one file:// proxy
	// (cmd/go's exception for testing a distribution). So the switch
	// fetches it from the cache alone, its hash is compared with the line
	// the checksum database gave when the shared cache was filled, and
	// go install runs that toolchain's go directly (GOTOOLCHAIN still
	// names it, as after a switch).
	got := output(t, work, append(env, "GOPROXY="+cacheProxy), "go", "version")
	if !strings.HasPrefix(got, "go version "+toolchain+" ") {
		t.Fatalf("GOTOOLCHAIN=%s go version: %s", toolchain, got)
	}
	gocmd := "go"
	if switchToolchain {
		checkToolchainHash(t, modcache, fresh, tcVersion)
		t.Logf("%s unpacked from the module cache into an empty one: %v", toolchain, time.Since(start).Round(time.Millisecond))
		gocmd = filepath.Join(fresh, "golang.org", "toolchain@"+tcVersion, "bin", "go")
	}

	env = append(env, "GOPROXY=file://"+proxy+","+cacheProxy+",off")
	installed := time.Now()
	output(t, work, env, gocmd, "install", modulePath+"/cmd/sysgate@"+version)
	t.Logf("go install %s with %s into an empty module cache: %v", version, toolchain, time.Since(installed).Round(time.Millisecond))

	checkAgainstGoSum(t, fresh, filepath.Join(root, "go.sum"))

	got = output(t, work, nil, filepath.Join(gobin, "sysgate"), "version")
	want := "sysgate " + version + " " + toolchain + " " + runtime.GOOS + "/" + runtime.GOARCH
	if strings.TrimSpace(got) != want {
		t.Errorf("installed sysgate version = %q, want %q", strings.TrimSpace(got), want)
	}

	// The control: held at the directive's toolchain, a module that needs
	// a newer Go is refused, not quietly built by another toolchain.
	cmd := exec.Command(gocmd, "install", modulePath+"/cmd/sysgate@"+raised)
	cmd.Dir, cmd.Env = work, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "requires go >= "+raisedGo) {
		t.Errorf("go install of a module with go %s under GOTOOLCHAIN=%s: err %v, want \"requires go >= %s\":\n%s",
			raisedGo, toolchain, err, raisedGo, out)
	}
	t.Logf("go install with %s, all steps: %v", toolchain, time.Since(start).Round(time.Millisecond))
}

// checkAgainstGoSum fails the test unless every module go install
// downloaded into the fresh cache (but sysgate and the toolchain) has the
// hash go.sum records for it.
func checkAgainstGoSum(t *testing.T, fresh, goSum string) {
	t.Helper()
	sums, err := os.ReadFile(goSum)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, line := range strings.Split(string(sums), "\n") {
		known[strings.TrimSpace(line)] = true
	}
	download := filepath.Join(fresh, "cache", "download")
	n := 0
	err = filepath.WalkDir(download, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ziphash") {
			return err
		}
		rel, err := filepath.Rel(download, p)
		if err != nil {
			return err
		}
		escaped, file, _ := strings.Cut(filepath.ToSlash(rel), "/@v/")
		modPath, err := module.UnescapePath(escaped)
		if err != nil {
			return err
		}
		version, err := module.UnescapeVersion(strings.TrimSuffix(file, ".ziphash"))
		if err != nil {
			return err
		}
		if modPath == modulePath || modPath == "golang.org/toolchain" {
			return nil
		}
		hash, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if line := modPath + " " + version + " " + strings.TrimSpace(string(hash)); !known[line] {
			t.Errorf("go install downloaded %s@%s with hash %s, which %s does not record", modPath, version, bytes.TrimSpace(hash), goSum)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("no downloaded module in %s: go install fetched no dependency?", download)
	}
	t.Logf("%d downloaded modules checked against go.sum", n)
}

// checkToolchainHash compares the hash of the toolchain zip in the fresh
// module cache with the one sum.golang.org signed for it, as the shared
// cache keeps its lookup.
func checkToolchainHash(t *testing.T, modcache, fresh, version string) {
	t.Helper()
	zipHash, err := os.ReadFile(filepath.Join(fresh, "cache", "download", "golang.org", "toolchain", "@v", version+".ziphash"))
	if err != nil {
		t.Fatal(err)
	}
	lookup := filepath.Join(modcache, "cache", "download", "sumdb", "sum.golang.org", "lookup", "golang.org", "toolchain@"+version)
	signed, err := os.ReadFile(lookup)
	if errors.Is(err, fs.ErrNotExist) {
		t.Logf("no checksum database lookup of the toolchain in the module cache (%s): its hash %s is unchecked", lookup, bytes.TrimSpace(zipHash))
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	want := "golang.org/toolchain " + version + " " + string(bytes.TrimSpace(zipHash)) + "\n"
	if !strings.Contains(string(signed), want) {
		t.Fatalf("the toolchain zip's hash %s is not the one the checksum database gave (%s):\n%s", bytes.TrimSpace(zipHash), lookup, signed)
	}
}

// nextPatch is the Go release after v: 1.26.0 -> 1.26.1.
func nextPatch(t *testing.T, v string) string {
	t.Helper()
	i := strings.LastIndexByte(v, '.')
	n, err := strconv.Atoi(v[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("go directive %q: want a release such as 1.26.0", v)
	}
	return v[:i+1] + strconv.Itoa(n+1)
}

// checkoutFile is one file of the checkout as the module zip sees it.
type checkoutFile struct {
	root, rel string
	info      fs.FileInfo
}

func (f checkoutFile) Path() string                 { return f.rel }
func (f checkoutFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f checkoutFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.rel)) }

// moduleFiles are the files a commit of this checkout would hold: tracked
// and untracked but not ignored, as they are on disk (so bin/, dist/ and
// suites/node_modules stay out, and an uncommitted edit is what gets built).
func moduleFiles(t *testing.T, root string) []modzip.File {
	t.Helper()
	list := output(t, root, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var files []modzip.File
	seen := map[string]bool{}
	for _, rel := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		if rel == "" || seen[rel] {
			continue
		}
		seen[rel] = true
		info, err := os.Lstat(filepath.Join(root, rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, checkoutFile{root: root, rel: path.Clean(filepath.ToSlash(rel)), info: info})
	}
	return files
}

// serveModule writes version of the module into a GOPROXY directory: the
// list, .info, .mod and the zip (made by x/mod/zip, as a proxy makes it).
func serveModule(t *testing.T, proxy, version string, files []modzip.File, gomod []byte) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	m := module.Version{Path: modulePath, Version: version}
	if err := modzip.Create(&zipped, m, withGoMod(files, gomod)); err != nil {
		t.Fatalf("module zip of %s: %v", version, err)
	}
	info, err := json.Marshal(struct{ Version, Time string }{version, time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := os.ReadFile(filepath.Join(dir, "list"))
	for name, data := range map[string][]byte{
		version + ".zip":  zipped.Bytes(),
		version + ".info": info,
		version + ".mod":  gomod,
		"list":            append(list, version+"\n"...),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// withGoMod is files with the root go.mod's content replaced by gomod.
func withGoMod(files []modzip.File, gomod []byte) []modzip.File {
	out := make([]modzip.File, 0, len(files))
	for _, f := range files {
		if c, ok := f.(checkoutFile); ok && c.rel == "go.mod" {
			f = goModFile{c, gomod}
		}
		out = append(out, f)
	}
	return out
}

// goModFile is the checkout's go.mod with other content.
type goModFile struct {
	checkoutFile
	data []byte
}

func (f goModFile) Lstat() (os.FileInfo, error)  { return sizedInfo{f.info, int64(len(f.data))}, nil }
func (f goModFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (i sizedInfo) Size() int64 { return i.size }

func goEnv(t *testing.T, name string) string {
	t.Helper()
	return strings.TrimSpace(output(t, "", nil, "go", "env", name))
}

// output runs a command in dir (env nil: this process's) and returns its
// stdout; a failure ends the test with its output.
func output(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s%s", name, strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
