//go:build linux && cgo

package kernel

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// rootProbe is the agent of TestSpawnRoot: it prints what it sees of its
// root, one "what: result" line each, result an errno's name or what it
// read. args: the host file it must not reach, the workspace it must.
func rootProbe(args []string) int {
	errName := func(err error) string {
		var errno unix.Errno
		switch {
		case err == nil:
			return "ok"
		case errors.As(err, &errno):
			return unix.ErrnoName(errno)
		}
		return err.Error()
	}
	write := func(path string) string {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
		if err == nil {
			unix.Close(fd)
		}
		return errName(err)
	}
	marker, err := os.ReadFile("/marker")
	fmt.Printf("marker: %s %s\n", strings.TrimSpace(string(marker)), errName(err))
	_, err = os.Stat(args[0])
	fmt.Printf("host file: %s\n", errName(err))
	fmt.Printf("workspace write: %s\n", write(filepath.Join(args[1], "out")))
	fmt.Printf("root write: %s\n", write("/new"))
	fmt.Printf("tmp write: %s\n", write("/tmp/new"))
	fmt.Printf("proc/sys write: %s\n", write("/proc/sys/kernel/hostname"))
	fmt.Printf("chroot: %s\n", errName(unix.Chroot("/tmp")))
	fmt.Printf("pid: %d\n", os.Getpid())
	status, err := os.Open("/proc/self/status")
	if err != nil {
		fmt.Println("status:", err)
		return 1
	}
	defer status.Close()
	lines := bufio.NewScanner(status)
	for lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), "CapEff:"); ok {
			fmt.Printf("CapEff: %s\n", strings.TrimSpace(v))
		}
	}
	return 0
}

// hostRoot is a root of the host's own /usr (merged /usr: bin, lib and
// lib64 are links into it) with a marker file, in a directory of its own.
func hostRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	for _, d := range []string{"usr", "proc", "dev", "sys", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"bin", "lib", "lib64", "sbin"} {
		if err := os.Symlink("usr/"+l, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFile(t, root, "marker", "inside\n")
	return root
}

// As root, in a PID namespace: the agent (this test binary, bound in
// under /tmp) sees the root's files and not the host's, writes its
// workspace and /tmp but not the root (shared by every run) nor
// /proc/sys (the fence's knobs came along), holds no capability, so
// chroot(2) is refused, and is pid 2 under the run's init.
func TestSpawnRoot(t *testing.T) {
	testutil.RequireRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	last, err := LastCapability()
	if err != nil {
		t.Fatal(err)
	}
	root := hostRoot(t)
	hostFile := testutil.WriteFile(t, t.TempDir(), "host-only", "outside\n")
	workspace := t.TempDir()
	setup := AgentSetup{Path: exe, Args: []string{"probe", rootProbeArg, hostFile, "/tmp/workspace"},
		Program: allowAll, NoAuditSession: true, PidNamespace: true, DropCaps: 1<<(last+1) - 1,
		Root: root, RootBinds: []BindFile{
			{Source: "/usr", Target: "/usr"},
			{Source: filepath.Dir(exe), Target: filepath.Dir(exe)},
			{Source: workspace, Target: "/tmp/workspace"},
		}}
	out, err := spawnOutput(setup)
	if err != nil {
		t.Fatalf("spawn in root %s: %v\n%s", root, err, out)
	}
	want := "marker: inside ok\nhost file: ENOENT\nworkspace write: ok\nroot write: EROFS\ntmp write: ok\n" +
		"proc/sys write: EROFS\nchroot: EPERM\npid: 2\nCapEff: 0000000000000000\n"
	if out != want {
		t.Errorf("the agent in root %s saw:\n%s\nwant:\n%s", root, out, want)
	}
	if _, err := os.Stat(filepath.Join(workspace, "out")); err != nil {
		t.Errorf("the agent's write to its workspace is not on the host: %v", err)
	}
	for _, p := range []string{"new", "tmp/new"} {
		if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s in the root after the run: %v; want nothing written there", p, err)
		}
	}
}

// A Root without the run's PID namespace or mount namespace, or
// relative, is refused before anything starts.
func TestSpawnRootRefused(t *testing.T) {
	for name, setup := range map[string]AgentSetup{
		"no pid namespace": {Root: "/srv/root"},
		"no fence":         {Root: "/srv/root", PidNamespace: true, NoFence: true},
		"relative":         {Root: "srv/root", PidNamespace: true},
		"slash":            {Root: "/", PidNamespace: true},
		"binds alone":      {RootBinds: []BindFile{{Source: "/a", Target: "/b"}}},
		"relative bind":    {Root: "/srv/root", PidNamespace: true, RootBinds: []BindFile{{Source: "a", Target: "/b"}}},
	} {
		setup.Path, setup.Args, setup.Program = "/bin/true", []string{"true"}, allowAll
		_, _, _, err := Spawn(&SpawnConfig{AgentSetup: setup})
		if err == nil || !strings.Contains(err.Error(), "Root") {
			t.Errorf("%s: Spawn gave %v; want a refusal naming Root", name, err)
		}
	}
	_, _, _, err := Spawn(&SpawnConfig{AgentSetup: AgentSetup{Path: "/bin/true", Args: []string{"true"}, Program: allowAll, Root: "/srv/root"}})
	if !errors.Is(err, ErrRootNeeds) {
		t.Errorf("Spawn of a Root without a PID namespace gave %v; want ErrRootNeeds", err)
	}
}
