package fileproxy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestCallerMountNamespace: a caller in user and mount namespaces of
// its own (the unprivileged run) has files the supervisor's namespace
// does not: the proxy reaches them through the caller's root and cwd,
// by absolute and relative path, and creates files there, not here.
func TestCallerMountNamespace(t *testing.T) {
	testutil.RequireRoot(t)
	dir := worldDir(t)
	priv := filepath.Join(dir, "private")
	if err := os.Mkdir(priv, 0o755); err != nil {
		t.Fatal(err)
	}
	ns := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
	}
	var paths []string
	r := runChildAttr(t, ns, func(a Access) bool { paths = append(paths, a.Path); return true },
		"mount:"+priv, "create:"+priv+"/x:644", "cat:"+priv+"/x",
		"chdir:"+priv, "cat:x", "create:y:600", "cat:../private/y")
	want := []string{"ok:", "ok:", "ok:made", "ok:", "ok:made", "ok:", "ok:made"}
	if strings.Join(r.lines, " ") != strings.Join(want, " ") {
		t.Fatalf("got %q, want %q", r.lines, want)
	}
	for _, name := range []string{"x", "y"} {
		if _, err := os.Stat(filepath.Join(priv, name)); err == nil {
			t.Errorf("%s was made in the supervisor's mount namespace, not the caller's", name)
		}
	}
	t.Logf("paths reported: %q", paths)
	for _, p := range paths {
		if p != priv+"/x" && p != priv+"/y" {
			t.Errorf("reported %q, want %s/x or /y", p, priv)
		}
	}
}
