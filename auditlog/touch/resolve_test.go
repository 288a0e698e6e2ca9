package touch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// itemOf makes a PATH item with the inode and device of an existing file.
func itemOf(t *testing.T, file, name, nametype string) Path {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(file, &st); err != nil {
		t.Fatal(err)
	}
	return Path{Name: name, NameType: nametype, Inode: st.Ino, Dev: fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))}
}

func TestResolveSymlinkWrite(t *testing.T) {
	dir := t.TempDir()
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "bashrc")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	ev := Event{Syscall: "openat", Args: [4]uint64{atFDCWD}, Flags: oWRONLY, CWD: ws,
		Paths: []Path{itemOf(t, target, "link", "NORMAL")}}
	ev.makeAbs()
	acc := ev.ResolvedAccesses("/")
	if len(acc) != 1 || acc[0].Path != target || acc[0].Unverified || acc[0].Op != Write {
		t.Fatalf("write through ws/link: %+v, want a verified write of %s", acc, target)
	}
	// The agent re-points the link before sysgate looks: the name leads
	// to another inode, so the access is only a candidate.
	decoy := filepath.Join(ws, "decoy")
	if err := os.WriteFile(decoy, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(ws, "link"))
	if err := os.Symlink(decoy, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	acc = ev.ResolvedAccesses("/")
	if len(acc) != 1 || !acc[0].Unverified || acc[0].Path != filepath.Join(ws, "link") {
		t.Fatalf("after re-pointing: %+v, want unverified ws/link", acc)
	}
}

func TestResolveDeletedTempFileByItsDirectory(t *testing.T) {
	ws := t.TempDir()
	tmp := filepath.Join(ws, "tmp.txt")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	created := itemOf(t, tmp, "tmp.txt", "CREATE")
	parent := itemOf(t, ws, ws, "PARENT")
	os.Remove(tmp)
	ev := Event{Syscall: "openat", Args: [4]uint64{atFDCWD}, Flags: oWRONLY | oCreat, CWD: ws, Paths: []Path{parent, created}}
	ev.makeAbs()
	acc := ev.ResolvedAccesses("/")
	if len(acc) != 1 || acc[0].Path != tmp || acc[0].Unverified {
		t.Fatalf("deleted temp file: %+v, want a verified write of %s", acc, tmp)
	}
	// Another directory in its place (the parent's inode differs): no.
	other := t.TempDir()
	ev.CWD = other
	ev.makeAbs()
	if acc := ev.ResolvedAccesses("/"); len(acc) != 1 || !acc[0].Unverified {
		t.Fatalf("name in another directory: %+v, want unverified", acc)
	}
}

func TestResolveUnderRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "home/u"), 0o755); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(root, "home/u/key")
	if err := os.WriteFile(key, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// An absolute symlink means the run's root, not the host's.
	if err := os.Symlink("/home/u/key", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	ev := Event{Syscall: "open", Args: [4]uint64{0, oRDONLY}, Flags: oRDONLY, Paths: []Path{itemOf(t, key, "/link", "NORMAL")}}
	ev.makeAbs()
	acc := ev.ResolvedAccesses(root)
	if len(acc) != 1 || acc[0].Path != "/home/u/key" || acc[0].Unverified {
		t.Fatalf("under root: %+v, want a verified read of /home/u/key", acc)
	}
}

func TestWalkStaysUnderRootAndStopsLoops(t *testing.T) {
	root := t.TempDir()
	if err := os.Symlink("../../../etc", filepath.Join(root, "up")); err != nil {
		t.Fatal(err)
	}
	if got, err := walk(root, "/up/passwd"); err != nil || got != "/etc/passwd" {
		t.Errorf("walk /up/passwd = %q, %v; want /etc/passwd inside the root", got, err)
	}
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	if _, err := walk(root, "/loop/x"); err == nil {
		t.Error("a symlink loop resolved")
	}
}

// TestResolveDirfdRelativeNames: names relative to a directory
// descriptor, and an open that recorded no name, are placed through the
// caller's descriptors while it lives (this test process stands for the
// caller), and not at all without them.
func TestResolveDirfdRelativeNames(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(dir, "x")
	if err := os.WriteFile(x, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deleted := itemOf(t, x, "x", "DELETE")
	os.Remove(x)
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// The kernel logs the CWD as the parent's name (it assumes a
	// relative name is relative to it); the inode is the directory's.
	parent := itemOf(t, dir, "/elsewhere", "PARENT")
	unlink := Event{Syscall: "unlinkat", PID: os.Getpid(), Args: [4]uint64{uint64(d.Fd())}, CWD: "/elsewhere", Paths: []Path{parent, deleted}}
	unlink.makeAbs()
	if acc := unlink.FileAccesses(); len(acc) != 1 || acc[0].Path != "" || !acc[0].Unverified {
		t.Errorf("unlinkat(dirfd, x) unresolved: %+v, want no path, unverified", acc)
	}
	if acc := unlink.ResolvedAccesses("/"); len(acc) != 1 || acc[0].Path != x || acc[0].Unverified || acc[0].Op != Delete {
		t.Errorf("unlinkat(dirfd, x): %+v, want a verified delete of %s", acc, x)
	}
	unlink.PID = 1 << 30 // no such process: nothing to ask
	if acc := unlink.ResolvedAccesses("/"); len(acc) != 1 || !acc[0].Unverified {
		t.Errorf("unlinkat(dirfd, x) of a gone process: %+v, want unverified", acc)
	}

	open := Event{Syscall: "openat", PID: os.Getpid(), Args: [4]uint64{uint64(d.Fd())}, Flags: oRDONLY, CWD: "/elsewhere",
		Paths: []Path{itemOf(t, f, "f", "NORMAL")}}
	open.makeAbs()
	if acc := open.ResolvedAccesses("/"); len(acc) != 1 || acc[0].Path != f || acc[0].Unverified {
		t.Errorf("openat(dirfd, f): %+v, want a verified read of %s", acc, f)
	}

	fh, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	item := itemOf(t, f, "", "NORMAL")
	byHandle := Event{Syscall: "open_by_handle_at", PID: os.Getpid(), Exit: int64(fh.Fd()), Flags: oRDONLY, Paths: []Path{item}}
	byHandle.makeAbs()
	if acc := byHandle.ResolvedAccesses("/"); len(acc) != 1 || acc[0].Path != f || acc[0].Unverified {
		t.Errorf("open_by_handle_at: %+v, want a verified read of %s", acc, f)
	}
	// The descriptor now holds another file: the inode check refuses it.
	other := itemOf(t, dir, "", "NORMAL")
	byHandle.Paths = []Path{other}
	if acc := byHandle.ResolvedAccesses("/"); len(acc) != 1 || !acc[0].Unverified {
		t.Errorf("descriptor of another inode: %+v, want unverified", acc)
	}
}

// A connect through a symlink names the socket the kernel reached; once
// the link leads elsewhere the name is no longer tied to it.
func TestSocketPathThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real, link, other := filepath.Join(dir, "real.sock"), filepath.Join(dir, "link.sock"), filepath.Join(dir, "other.sock")
	for _, p := range []string{real, other} {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	item := itemOf(t, real, link, "NORMAL")
	item.Mode = unix.S_IFSOCK | 0o755
	ev := Event{Syscall: "connect", Addr: &Sockaddr{Family: "unix", Path: link}, Paths: []Path{item}}
	ev.makeAbs()
	if p, found, ok := ev.SocketPath("/"); !found || !ok || p != real {
		t.Errorf("SocketPath = %q, %v, %v; want %q", p, found, ok, real)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	if p, found, ok := ev.SocketPath("/"); !found || ok {
		t.Errorf("after the swap SocketPath = %q, %v, %v; want found and not ok", p, found, ok)
	}
	if _, found, _ := (Event{Syscall: "connect"}).SocketPath("/"); found {
		t.Error("an event without a socket item found one")
	}
}

// A ".." after a symlink is taken from the link's target, not from the
// link's directory: ws/link/../key is outside/key. Cleaned as a string
// it was ws/key.
func TestResolveDotDotAfterSymlink(t *testing.T) {
	dir := t.TempDir()
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, filepath.Join(outside, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(outside, "key")
	if err := os.WriteFile(key, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "sub"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	ev := Event{Syscall: "openat", Args: [4]uint64{atFDCWD}, Flags: oRDONLY, CWD: ws,
		Paths: []Path{itemOf(t, key, "link/../key", "NORMAL")}}
	ev.makeAbs()
	if want := ws + "/link/../key"; ev.Paths[0].Abs != want {
		t.Fatalf("Abs %q, want %q: a \"..\" is the file system's to place", ev.Paths[0].Abs, want)
	}
	acc := ev.ResolvedAccesses("/")
	if len(acc) != 1 || acc[0].Path != key || acc[0].Unverified {
		t.Fatalf("read of ws/link/../key: %+v, want a verified read of %s", acc, key)
	}
}

// Issue 43, item 1: /proc/self/root/../PATH is PATH under the caller's
// root, never /proc/self/PATH. The caller here is this test's process.
func TestResolveThroughOwnRootLink(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "token")
	if err := os.WriteFile(key, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/proc/self/root/.." + key, "/proc/thread-self/root/../.." + key, "/proc/self/root" + key} {
		ev := Event{PID: os.Getpid(), Syscall: "open", Args: [4]uint64{0, oRDONLY}, Flags: oRDONLY, Paths: []Path{itemOf(t, key, name, "NORMAL")}}
		ev.makeAbs()
		if strings.Contains(name, "..") && ev.Paths[0].Abs != name {
			t.Fatalf("%s: Abs %q: the \"..\" after the root link was cleaned away", name, ev.Paths[0].Abs)
		}
		acc := ev.ResolvedAccesses("/")
		if len(acc) != 1 || acc[0].Path != key || acc[0].Unverified {
			t.Fatalf("%s: %+v, want a verified read of %s", name, acc, key)
		}
	}
	// Through another magic link (a descriptor's directory), the name
	// beyond it cannot be placed: unverified, never a /proc name.
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	name := fmt.Sprintf("/proc/self/fd/%d/../%s/token", d.Fd(), filepath.Base(dir))
	ev := Event{PID: os.Getpid(), Syscall: "open", Args: [4]uint64{0, oRDONLY}, Flags: oRDONLY, Paths: []Path{itemOf(t, key, name, "NORMAL")}}
	ev.makeAbs()
	if acc := ev.ResolvedAccesses("/"); len(acc) != 1 || !acc[0].Unverified || acc[0].Path != name {
		t.Fatalf("%s: %+v, want unverified under its recorded name", name, acc)
	}
}
