package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/auditlog/touch"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"golang.org/x/sys/unix"
)

func TestProcEntry(t *testing.T) {
	for _, c := range []struct {
		path, dev string
		ok        bool
	}{
		{"/proc/filesystems", "00:15", true},
		{"/proc/self/status", "00:15", true},
		{"/proc/42/task/43/stat", "00:15", true},
		{"/proc/sys/kernel/core_pattern", "00:15", true},
		// Magic links: the name says nothing of the file behind it.
		{"/proc/self/fd/3", "00:15", false},
		{"/proc/self/fd/3", "00:2a", false},
		{"/proc/42/cwd/x", "00:15", false},
		{"/proc/thread-self/root/etc/shadow", "00:15", false},
		{"/proc/42/task/43/fd/1", "00:15", false},
		{"/proc/self/map_files/1000-2000", "00:15", false},
		// A ".." leaves /proc from wherever the link before it led
		// (issue 43, item 1): a tmpfs file is major 0 too.
		{"/proc/self/root/../run/secrets/token", "00:1a", false},
		{"/proc/self/task/../root/../dev/shm/token", "00:1a", false},
		{"/proc/1/../self/status", "00:15", false},
		// Not a virtual device: a disk file behind a /proc name.
		{"/proc/self/status", "fe:00", false},
		{"/etc/passwd", "00:15", false},
	} {
		_, ok := procEntry(touch.Access{Path: c.path, Item: touch.Path{Dev: c.dev}})
		if ok != c.ok {
			t.Errorf("procEntry(%s on %s) = %v, want %v", c.path, c.dev, ok, c.ok)
		}
	}
}

func TestOwnProcOf(t *testing.T) {
	for in, want := range map[string]string{
		"/proc/42/status":        "/proc/self/status",
		"/proc/42":               "/proc/self",
		"/proc/thread-self/comm": "/proc/self/comm",
		"/proc/43/environ":       "/proc/43/environ",
		"/proc/420/status":       "/proc/420/status",
		"/home/u/proc/42/x":      "/home/u/proc/42/x",
	} {
		if got := ownProcOf(in, 42); got != want {
			t.Errorf("ownProcOf(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestTouchArchesAddsCompatOnlyForACompatSection(t *testing.T) {
	dir := t.TempDir()
	native := filepath.Join(dir, "native.yaml")
	compat := filepath.Join(dir, "compat.yaml")
	if err := os.WriteFile(native, []byte("version: 1\nsyscalls:\n  x86_64: [read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(compat, []byte("version: 1\nsyscalls:\n  x86_64: [read]\n  i386: [read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want touch.Arch
	}{{native, touch.Native}, {compat, touch.Native | touch.Compat}} {
		p, err := baseline.Load(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := touchArches(p); got != c.want {
			t.Errorf("%s: arches %v, want %v", c.path, got, c.want)
		}
	}
	if got := touchArches(nil); got != touch.Native {
		t.Errorf("no baselines: %v", got)
	}
}

func TestInHidden(t *testing.T) {
	f := &fileEmitter{hidden: []string{"/run/sysgate"}}
	for _, c := range []struct {
		path, dev string
		ok        bool
	}{
		{"/run/sysgate", "00:2f", true},
		{"/run/sysgate/filters", "00:2f", true},
		{"/run/sysgatex", "00:2f", false},
		{"/run/sysgate/x", "fe:00", false}, // a disk file: not the tmpfs
		{"/home/u/.ssh/id_rsa", "00:2f", false},
		// ".." leaves the hidden tmpfs for its mount point's parent.
		{"/run/sysgate/../secrets/token", "00:2f", false},
	} {
		if got := f.inHidden(touch.Access{Path: c.path, Item: touch.Path{Dev: c.dev}}); got != c.ok {
			t.Errorf("inHidden(%s on %s) = %v, want %v", c.path, c.dev, got, c.ok)
		}
	}
}

// A name of one of the run's bound files, recorded with the inode of the
// file sysgate bound there, is that file once the namespace is gone; the
// same name with another inode (the machine's own file) is not.
func TestBoundFileVerified(t *testing.T) {
	src := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(src, []byte("nameserver 127.53.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFileEmitter(newFileBook(true, nil))
	f.binds = bindIdentities([]kernel.BindFile{{Source: src, Target: "/etc/resolv.conf"}})
	id := f.binds["/etc/resolv.conf"]
	if id.inode == 0 {
		t.Fatal("no identity for the bound file")
	}
	a := touch.Access{Path: "/etc/resolv.conf", Item: touch.Path{Abs: "/etc/resolv.conf", Inode: id.inode, Dev: id.dev}}
	if p, ok := f.bound(a); !ok || p != "/etc/resolv.conf" {
		t.Errorf("bound = %q, %v; want the target", p, ok)
	}
	a.Item.Inode++
	if _, ok := f.bound(a); ok {
		t.Error("another inode under the target's name was taken for the bound file")
	}
	a.Item.Inode, a.Path, a.Item.Abs = id.inode, "/etc/hosts", "/etc/hosts"
	if _, ok := f.bound(a); ok {
		t.Error("the bound file's inode under another name was taken for the target")
	}
}

// An O_PATH open whose name leads elsewhere by the time the observer
// looks (./link re-pointed from the key to input.txt) leaves only a
// candidate name: a reopen of the descriptor after the process is gone
// must not inherit it as the key's path (it was read as ./link, which
// the workspace allows, and the run was clean).
func TestOPathCandidateNotInherited(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	key := filepath.Join(dir, "key")
	for _, err := range []error{os.Mkdir(ws, 0o755), os.WriteFile(key, []byte("k"), 0o600), os.WriteFile(filepath.Join(ws, "input.txt"), nil, 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("input.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(key, &st); err != nil {
		t.Fatal(err)
	}
	keyItem := func(name string) touch.Path {
		return touch.Path{Name: name, Abs: filepath.Join(ws, name), NameType: "NORMAL", Inode: st.Ino, Mode: st.Mode,
			Dev: fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))}
	}
	gone := 1 << 30 // no such process: /proc says nothing
	f := newFileEmitter(newFileBook(true, nil))
	f.started = true
	f.emit(touch.Event{Syscall: "openat", PID: gone, CWD: ws, Flags: oPath, Paths: []touch.Path{keyItem("link")}})
	reopen := keyItem("/proc/self/fd/3")
	reopen.Abs = "/proc/self/fd/3"
	f.emit(touch.Event{Syscall: "openat", PID: gone, CWD: ws, Flags: unix.O_RDONLY, Paths: []touch.Path{reopen}})
	f.close()
	for _, touched := range f.book.touches() {
		if touched.Path == filepath.Join(ws, "link") || touched.Path == "" {
			t.Errorf("the key's reopen was tied to %q", touched.Path)
		}
	}
	if got := f.book.unverifiedPaths(); len(got) != 1 || got[0] != "/proc/self/fd/3" {
		t.Errorf("unverified %q, want the reopen", got)
	}
}

// A change through a descriptor (issue 43, item 3): fchmod records the
// file's inode and no name, which the run's recorded open ties to its
// path; futimens records no file at all, and is the file the process's
// recorded open returned under that number. A descriptor the run's
// records never gave leaves the run unverified, never clean.
func TestChangeThroughDescriptor(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(tool, &st); err != nil {
		t.Fatal(err)
	}
	item := touch.Path{Name: tool, Abs: tool, NameType: "NORMAL", Inode: st.Ino, Mode: st.Mode,
		Dev: fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))}
	gone := 1 << 30 // no such process: /proc says nothing
	f := newFileEmitter(newFileBook(true, nil))
	f.started = true
	f.emit(touch.Event{Syscall: "openat", PID: gone, Exit: 3, Flags: unix.O_RDONLY, Args: [4]uint64{0xffffff9c}, Paths: []touch.Path{item}})
	nameless := item
	nameless.Name, nameless.Abs = "", ""
	f.emit(touch.Event{Syscall: "fchmod", PID: gone, Args: [4]uint64{3, 0o4755}, Paths: []touch.Path{nameless}})
	f.emit(touch.Event{Syscall: "utimensat", PID: gone, Args: [4]uint64{3, 0}})
	f.emit(touch.Event{Syscall: "utimensat", PID: gone, Args: [4]uint64{7, 0}})
	f.close()
	var writes uint64
	got := f.book.touches()
	for _, touched := range got {
		if touched.Path == tool && touched.Op == baseline.FileWrite {
			writes += touched.Count
		}
	}
	if writes != 2 {
		t.Errorf("want fchmod and futimens of fd 3 as two writes of %s, got %+v", tool, got)
	}
	if u := f.book.unverifiedPaths(); len(u) != 1 {
		t.Errorf("futimens of a descriptor the records never gave: unverified %q, want one", u)
	}
}
