package fileproxy

import (
	"path/filepath"
	"testing"
)

// TestOpenHandsOverTheFile: the descriptor the caller gets reads the
// file its path names, from an absolute path, a dirfd, and a relative
// path from a cwd that changes between calls.
func TestOpenHandsOverTheFile(t *testing.T) {
	dir := worldDir(t)
	files(t, dir, "a/one", "b/one", "two")
	r := runChild(t, nil, allowAll,
		"cat:"+dir+"/two",
		"catat:"+dir+"/a:one",
		"chdir:"+dir+"/a", "cat:one",
		"chdir:"+dir+"/b", "cat:one", "cat:../two",
		"cat:"+dir+"/missing")
	want := []string{"ok:two", "ok:one", "ok:", "ok:one", "ok:", "ok:one", "ok:two", "err:ENOENT"}
	for i := range want {
		if r.lines[i] != want[i] {
			t.Errorf("op %d: got %q, want %q", i, r.lines[i], want[i])
		}
	}
	for _, p := range []string{dir + "/two", dir + "/a/one", dir + "/b/one", dir + "/a"} {
		if !has(r.accesses, Access{Path: p, Op: OpRead, Syscall: "openat"}) {
			t.Errorf("no read of %s in %+v", p, r.accesses)
		}
	}
}

// TestOpenDenied: decide's refusal is the caller's EACCES, and reported.
func TestOpenDenied(t *testing.T) {
	dir := worldDir(t)
	files(t, dir, "secret", "public")
	r := runChild(t, nil, denyPath(dir+"/secret"), "cat:"+dir+"/secret", "cat:"+dir+"/./public")
	if r.lines[0] != "err:EACCES" || r.lines[1] != "ok:public" {
		t.Fatalf("got %q", r.lines)
	}
	if !has(r.accesses, Access{Path: dir + "/secret", Op: OpRead, Syscall: "openat", Denied: true}) {
		t.Errorf("the refused read is not reported: %+v", r.accesses)
	}
}

// TestReopenOfOPathForWrite: an O_PATH descriptor (no access needed)
// reopened for write through /proc/self/fd/N or /dev/fd/N is a write of
// the file it names, and refused as one.
func TestReopenOfOPathForWrite(t *testing.T) {
	dir := worldDir(t)
	files(t, dir, "secret")
	secret := filepath.Join(dir, "secret")
	deny := func(a Access) bool { return !(a.Path == secret && a.Op == OpWrite) }
	r := runChild(t, nil, deny, "reopenw:"+secret+":/proc/self/fd/%d", "reopenw:"+secret+":/dev/fd/%d", "reopenw:"+secret+":/proc/thread-self/fd/%d")
	for i, l := range r.lines {
		if l != "err:EACCES" {
			t.Errorf("reopen %d: %q, want err:EACCES", i, l)
		}
	}
	if !has(r.accesses, Access{Path: secret, Op: OpRead, Syscall: "openat", Racy: true}) {
		t.Errorf("the O_PATH open is not reported as a read: %+v", r.accesses)
	}
	n := 0
	for _, a := range r.accesses {
		if a == (Access{Path: secret, Op: OpWrite, Syscall: "openat", Denied: true}) {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d refused writes of %s reported, want 3: %+v", n, secret, r.accesses)
	}
}

// TestFIFOOpensDoNotBlockTheProxy: a FIFO's reader and writer open it
// from two threads; the first open waits for the second, which the
// proxy must still serve.
func TestFIFOOpensDoNotBlockTheProxy(t *testing.T) {
	dir := worldDir(t)
	r := runChild(t, nil, allowAll, "fifo:"+dir+"/p")
	if r.lines[0] != "ok:through" {
		t.Fatalf("got %q", r.lines[0])
	}
	for _, op := range []Op{OpRead, OpWrite} {
		if !has(r.accesses, Access{Path: dir + "/p", Op: op, Syscall: "openat"}) {
			t.Errorf("no %v of the FIFO in %+v", op, r.accesses)
		}
	}
}
