package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

// hideScript runs a command in the new mount namespace unshare made, with
// the file $1 bind-mounted over the libseccomp library $2: the dynamic
// loader then finds an empty file where libseccomp.so.2 was.
const hideScript = `set -e; mount --bind "$1" "$2"; shift 2; exec "$@"`

// TestReleaseRunsWithoutLibseccomp builds `make release` and shows that its
// binary runs `version` and `doctor` where libseccomp is hidden, while an
// ordinary (dynamically linked) build fails to start there, so the test
// can tell the two apart.
func TestReleaseRunsWithoutLibseccomp(t *testing.T) {
	testutil.RequireAudit(t) // root for unshare and mount; audit for doctor's end-to-end check
	for _, tool := range []string{"make", "unshare", "mount", "ldd", "sha256sum"} {
		testutil.RequireCommand(t, tool, "make release and the hidden-library namespace")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dist, tmp := t.TempDir(), t.TempDir()
	run(t, root, "make", "--no-print-directory", "release", "DIST="+dist)
	static := filepath.Join(dist, "sysgate-linux-amd64")
	run(t, dist, "sha256sum", "-c", "SHA256SUMS")

	dynamic := filepath.Join(tmp, "sysgate-dynamic")
	run(t, root, "go", "build", "-o", dynamic, "./cmd/sysgate")
	lib := libseccompOf(t, dynamic)
	empty := filepath.Join(tmp, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hidden := func(args ...string) (string, error) {
		cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private",
			"sh", "-c", hideScript, "sh", empty, lib}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}

	// The control: the dynamic build cannot start without its library.
	out, err := hidden(dynamic, "version")
	if err == nil || !strings.Contains(out, "libseccomp.so") {
		t.Fatalf("the dynamic build ran with %s hidden (err %v): %s", lib, err, out)
	}
	t.Logf("dynamic build, %s hidden: %v: %s", lib, err, strings.TrimSpace(out))

	// make release stamps git describe (outside a clone, "(devel)").
	want := "sysgate (devel) "
	if d, err := exec.Command("git", "-C", root, "describe", "--tags", "--always", "--dirty").Output(); err == nil {
		want = "sysgate " + strings.TrimSpace(string(d)) + " "
	}
	out, err = hidden(static, "version")
	if err != nil || !strings.HasPrefix(out, want) {
		t.Fatalf("the release binary's version with %s hidden (err %v): %s, want %q...", lib, err, out, want)
	}
	t.Logf("release binary, %s hidden: %s", lib, strings.TrimSpace(out))

	installRelease(t, root, static, hidden)

	// doctor loads real seccomp filters through libseccomp; no fault test
	// may change the kernel's audit settings meanwhile.
	release, err := auditctltest.ExclusiveKernel()
	if err != nil {
		t.Fatal(err)
	}
	out, err = hidden(static, "doctor")
	if rerr := release(); rerr != nil {
		t.Error(rerr)
	}
	if err != nil || !strings.Contains(out, "ready:") {
		t.Fatalf("the release binary's doctor with %s hidden (err %v):\n%s", lib, err, out)
	}
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

var lddSeccomp = regexp.MustCompile(`libseccomp\.so[.0-9]* => (\S+)`)

// libseccompOf is the file the dynamic loader maps for bin's libseccomp,
// symlinks resolved (a bind mount over a symlink would cover its target
// anyway, but the resolved path says which file is hidden).
func libseccompOf(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command("ldd", bin).CombinedOutput()
	m := lddSeccomp.FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("ldd %s names no libseccomp (err %v):\n%s", bin, err, out)
	}
	lib, err := filepath.EvalSymlinks(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// installRelease runs the action's install step (scripts/action.sh) for a
// release, served from a file:// URL laid out as GitHub's release
// downloads are, where libseccomp is hidden and no Go is on PATH: the
// binary is installed after its checksum matched, and runs. A binary that
// does not match the release's SHA256SUMS is refused.
func installRelease(t *testing.T, root, static string, hidden func(args ...string) (string, error)) {
	t.Helper()
	const tag = "v0.0.0-test"
	base := t.TempDir()
	rel := filepath.Join(base, tag)
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, rel, "cp", static, "sysgate-linux-amd64")
	run(t, rel, "sh", "-c", "sha256sum sysgate-linux-amd64 >SHA256SUMS")
	install := func() (string, string, error) {
		bin, ghPath := t.TempDir(), filepath.Join(t.TempDir(), "github_path")
		out, err := hidden("env", "-i", "PATH=/usr/bin:/bin", "HOME="+t.TempDir(),
			"SYSGATE_FROM=release", "SYSGATE_RELEASE="+tag, "SYSGATE_RELEASE_BASE=file://"+base,
			"SYSGATE_BIN_DIR="+bin, "GITHUB_PATH="+ghPath,
			"bash", filepath.Join(root, "scripts", "action.sh"), "install")
		return filepath.Join(bin, "sysgate"), out, err
	}
	bin, out, err := install()
	if err != nil || !strings.Contains(out, "installed the release binary: sysgate ") {
		t.Fatalf("the action's install step from a release (err %v):\n%s", err, out)
	}
	if v, err := hidden(bin, "version"); err != nil || !strings.HasPrefix(v, "sysgate ") {
		t.Fatalf("the installed release binary (err %v): %s", err, v)
	}
	t.Logf("action install from a release, libseccomp hidden, no Go on PATH: %s", strings.TrimSpace(out))

	// One byte changed: the checksum no longer matches.
	f, err := os.OpenFile(filepath.Join(rel, "sysgate-linux-amd64"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	bin, out, err = install()
	if err == nil || !strings.Contains(out, "does not match the release's SHA256SUMS") {
		t.Fatalf("a tampered release binary was not refused (err %v):\n%s", err, out)
	}
	if _, err := os.Stat(bin); !os.IsNotExist(err) {
		t.Errorf("a tampered release binary was installed at %s", bin)
	}
}
