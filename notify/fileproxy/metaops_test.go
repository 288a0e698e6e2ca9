package fileproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMetadataCalls: a change of mode, owner, extended attributes or
// times, by name or through a descriptor opened read-only, is a write
// of the file; refused outside the workspace, it changes nothing
// (issue 43, items 3 and 4).
func TestMetadataCalls(t *testing.T) {
	dir := worldDir(t)
	files(t, dir, "ws/c", "home/tool")
	ws, tool := filepath.Join(dir, "ws"), filepath.Join(dir, "home/tool")
	c := ws + "/c"
	decide := func(a Access) bool { return a.Op == OpRead || strings.HasPrefix(a.Path, ws+"/") }
	var ops, want []string
	for _, op := range []string{"fchmod", "fchown", "fsetxattr", "fremovexattr", "setxattr", "removexattr", "utimens", "futimens"} {
		ops = append(ops, op+":"+c, op+":"+tool)
		want = append(want, "ok:", "err:EACCES")
	}
	ops = append(ops, "mkfifo:"+ws+"/fifo", "mkfifo:"+dir+"/home/fifo")
	want = append(want, "ok:", "err:EACCES")
	r := runChild(t, nil, decide, ops...)
	if strings.Join(r.lines, " ") != strings.Join(want, " ") {
		t.Fatalf("got  %q\nwant %q", r.lines, want)
	}
	for _, a := range []Access{
		{Path: c, Op: OpWrite, Syscall: "fchmod"},
		{Path: tool, Op: OpWrite, Syscall: "fchmod", Denied: true},
		{Path: tool, Op: OpWrite, Syscall: "fchown", Denied: true},
		{Path: c, Op: OpWrite, Syscall: "fsetxattr"},
		{Path: tool, Op: OpWrite, Syscall: "fsetxattr", Denied: true},
		{Path: c, Op: OpWrite, Syscall: "fremovexattr"},
		{Path: tool, Op: OpWrite, Syscall: "setxattr", Denied: true},
		{Path: c, Op: OpWrite, Syscall: "removexattr"},
		{Path: c, Op: OpWrite, Syscall: "utimensat"},
		{Path: tool, Op: OpWrite, Syscall: "utimensat", Denied: true},
		{Path: ws + "/fifo", Op: OpWrite, Syscall: "mknodat"},
		{Path: dir + "/home/fifo", Op: OpWrite, Syscall: "mknodat", Denied: true},
	} {
		if !has(r.accesses, a) {
			t.Errorf("no %+v", a)
		}
	}
	if t.Failed() {
		t.Logf("accesses: %+v", r.accesses)
	}
	st, err := os.Stat(tool)
	if err != nil || st.Mode() != 0o644 || st.ModTime().Unix() < 1000 {
		t.Errorf("a refused call changed %s: %v %v %v", tool, st.Mode(), st.ModTime(), err)
	}
	if sz, _ := unix.Getxattr(tool, "user.sysgate", nil); sz > 0 {
		t.Errorf("a refused setxattr wrote %s", tool)
	}
	st, err = os.Stat(c)
	// fchmod 04755, then fchown (which clears set-user-ID, as for any
	// chown of a file): 0755.
	if err != nil || st.Mode() != 0o755 || st.ModTime().Unix() != 4 {
		t.Errorf("%s: mode %v, mtime %v (want 0755, 4 from futimens): %v", c, st.Mode(), st.ModTime().Unix(), err)
	}
	if fi, err := os.Lstat(ws + "/fifo"); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("mkfifo: %v %v", fi, err)
	}
}
