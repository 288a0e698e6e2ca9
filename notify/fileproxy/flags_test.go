package fileproxy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenFlagsAndNames: open flags keep their meaning through the
// proxy, /proc/self names the caller, openat2 keeps its resolve flags,
// and a symlink planted in the workspace is reported as its target.
func TestOpenFlagsAndNames(t *testing.T) {
	dir := worldDir(t)
	files(t, dir, "ws/a", "key")
	ws, key := filepath.Join(dir, "ws"), filepath.Join(dir, "key")
	if err := os.Symlink(key, ws+"/link"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/a", ws+"/abs"); err != nil {
		t.Fatal(err)
	}
	// Followed from the supervisor, /proc/self is the supervisor: a
	// symlink into it must not hand the caller the supervisor's files.
	if err := os.Symlink("/proc/self/environ", ws+"/env"); err != nil {
		t.Fatal(err)
	}
	hex := func(f int) string { return fmt.Sprintf("%x", f) }
	inWorkspace := func(a Access) bool {
		return strings.HasPrefix(a.Path, ws+"/") || a.Path == ws || strings.HasPrefix(a.Path, "/proc/")
	}
	r := runChild(t, nil, inWorkspace,
		"open:"+ws+"/a:"+hex(unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY),
		"open:"+ws+"/link:"+hex(unix.O_RDONLY|unix.O_NOFOLLOW),
		"open:"+ws+"/link:"+hex(unix.O_RDONLY|unix.O_DIRECTORY),
		"open:"+ws+"/link:"+hex(unix.O_WRONLY|unix.O_TRUNC),
		"open:"+ws+"/new:"+hex(unix.O_CREAT|unix.O_WRONLY),
		"tmpfile:"+ws,
		"selfstat",
		// RESOLVE_IN_ROOT from ws: "/a" and the absolute symlink "abs"
		// are ws/a; ".." stops at ws.
		"openat2:"+ws+":/a:"+hex(unix.RESOLVE_IN_ROOT),
		"openat2:"+ws+":abs:"+hex(unix.RESOLVE_IN_ROOT),
		"openat2:"+ws+":../../a:"+hex(unix.RESOLVE_IN_ROOT),
		"openat2:"+ws+":../key:"+hex(unix.RESOLVE_BENEATH),
		"cat:"+ws+"/env")
	want := []string{"err:EEXIST", "err:ELOOP", "err:ENOTDIR", "err:EACCES", "ok:", "ok:", "ok:mine",
		"ok:a", "ok:a", "ok:a", "err:EXDEV", "err:EACCES"}
	for i := range want {
		if r.lines[i] != want[i] {
			t.Errorf("op %d: got %q, want %q", i, r.lines[i], want[i])
		}
	}
	if !has(r.accesses, Access{Path: key, Op: OpWrite, Syscall: "openat", Denied: true}) {
		t.Errorf("the write through the planted symlink is not reported as %s: %+v", key, r.accesses)
	}
	supervisorEnv := fmt.Sprintf("/proc/%d/environ", os.Getpid())
	if !has(r.accesses, Access{Path: supervisorEnv, Op: OpRead, Syscall: "openat", Denied: true}) {
		t.Errorf("the read of %s through a symlink is not refused: %+v", supervisorEnv, r.accesses)
	}
	if b, err := os.ReadFile(key); err != nil || string(b) != "key" {
		t.Errorf("the refused O_TRUNC open changed %s: %q %v", key, b, err)
	}
	if _, err := os.Stat(ws + "/new"); err != nil {
		t.Errorf("O_CREAT: %v", err)
	}
}
