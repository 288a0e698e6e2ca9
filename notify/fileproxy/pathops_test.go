package fileproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathCalls: the calls that return no descriptor are performed as
// asked and reported with their ops; a refused one changes nothing. (Go
// makes the *at calls: renameat, unlinkat, mkdirat...)
func TestPathCalls(t *testing.T) {
	dir := worldDir(t)
	files(t, dir, "ws/a", "ws/b", "ws/c", "home/.bashrc")
	ws, bashrc := filepath.Join(dir, "ws"), filepath.Join(dir, "home/.bashrc")
	outside := func(a Access) bool { return a.Op == OpRead || strings.HasPrefix(a.Path, ws+"/") }
	r := runChild(t, nil, outside,
		"chdir:"+ws,
		"rename:a:renamed", "unlink:b", "mkdir:sub", "symlink:/etc/passwd:sub/l",
		"chmod:c", "truncate:c", "link:c:sub/hard",
		"rename:c:"+bashrc, "link:"+bashrc+":sub/key", "truncate:"+bashrc,
		"handle:c")
	want := []string{"ok:", "ok:", "ok:", "ok:", "ok:", "ok:", "ok:", "ok:",
		"err:EACCES", "ok:", "err:EACCES", "err:EPERM"}
	if strings.Join(r.lines, " ") != strings.Join(want, " ") {
		t.Fatalf("got  %q\nwant %q", r.lines, want)
	}
	for _, a := range []Access{
		{Path: ws + "/a", Op: OpDelete, Syscall: "renameat"},
		{Path: ws + "/renamed", Op: OpWrite, Syscall: "renameat"},
		{Path: ws + "/b", Op: OpDelete, Syscall: "unlinkat"},
		{Path: ws + "/sub", Op: OpWrite, Syscall: "mkdirat"},
		{Path: ws + "/sub/l", Op: OpWrite, Syscall: "symlinkat"},
		{Path: ws + "/c", Op: OpWrite, Syscall: "fchmodat"},
		{Path: ws + "/c", Op: OpWrite, Syscall: "truncate"},
		{Path: ws + "/c", Op: OpRead, Syscall: "linkat"},
		{Path: ws + "/sub/hard", Op: OpWrite, Syscall: "linkat"},
		{Path: bashrc, Op: OpWrite, Syscall: "renameat", Denied: true},
		{Path: bashrc, Op: OpRead, Syscall: "linkat"},
		{Path: bashrc, Op: OpWrite, Syscall: "truncate", Denied: true},
		{Path: ws + "/c", Op: OpRead, Syscall: "name_to_handle_at", Denied: true},
	} {
		if !has(r.accesses, a) {
			t.Errorf("no %+v", a)
		}
	}
	if t.Failed() {
		t.Logf("accesses: %+v", r.accesses)
	}
	if b, err := os.ReadFile(bashrc); err != nil || string(b) != ".bashrc" {
		t.Errorf("the refused rename or truncate changed %s: %q %v", bashrc, b, err)
	}
	if b, err := os.ReadFile(ws + "/c"); err != nil || string(b) != "c" {
		t.Errorf("truncate to 1 byte: %q %v", b, err)
	}
	st, err := os.Stat(ws + "/c")
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("chmod 600: %v %v", st.Mode(), err)
	}
	if l, err := os.Readlink(ws + "/sub/l"); err != nil || l != "/etc/passwd" {
		t.Errorf("symlink: %q %v", l, err)
	}
	for _, p := range []string{ws + "/renamed", ws + "/sub/hard", ws + "/sub/key"} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
