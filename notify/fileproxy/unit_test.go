package fileproxy

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestParseStatus(t *testing.T) {
	status := "Name:\tsh\nUmask:\t0027\nTgid:\t41\nUid:\t1000\t1000\t1000\t1001\nGid:\t100\t100\t100\t101\nGroups:\t4 27 \nCapEff:\t0000000000000400\n"
	c, err := parseStatus([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if c.tgid != 41 || c.umask != 0o27 || c.cred.UID != 1001 || c.cred.GID != 101 || !slices.Equal(c.cred.Groups, []uint32{4, 27}) || c.cred.CapEff != 0x400 {
		t.Errorf("parsed %+v", c)
	}
	// A status missing a line says nothing certain about the caller.
	if _, err := parseStatus([]byte("Tgid:\t41\nUid:\t1 1 1 1\n")); err == nil {
		t.Error("a status without Gid, Groups, Umask and CapEff parsed")
	}
	if _, err := parseStatus([]byte("Tgid:\t41\nUmask:\t0022\nUid:\t1 1 1\nGid:\t1 1 1 1\nGroups:\t\nCapEff:\t0\n")); err == nil {
		t.Error("a Uid line with three ids parsed")
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ in, dir, base string }{
		{"a", ".", "a"}, {"a/b", "a", "b"}, {"/b", "/", "b"}, {"/a/b/", "/a", "b"}, {"/", "/", "."},
	} {
		dir, base, _ := split(c.in)
		if dir != c.dir || base != c.base {
			t.Errorf("split(%q) = %q, %q; want %q, %q", c.in, dir, base, c.dir, c.base)
		}
	}
}

func TestOpenOps(t *testing.T) {
	for _, c := range []struct {
		flags int
		ops   []Op
	}{
		{unix.O_RDONLY, []Op{OpRead}},
		{unix.O_WRONLY, []Op{OpWrite}},
		{unix.O_RDWR, []Op{OpRead, OpWrite}},
		{unix.O_RDONLY | unix.O_TRUNC, []Op{OpRead, OpWrite}},
		{unix.O_RDONLY | unix.O_CREAT, []Op{OpRead, OpWrite}},
		{unix.O_WRONLY | unix.O_APPEND, []Op{OpWrite}},
		{unix.O_PATH | unix.O_WRONLY, []Op{OpRead}},
		{unix.O_TMPFILE | unix.O_WRONLY, []Op{OpWrite}},
		{unix.O_DIRECTORY, []Op{OpRead}},
	} {
		if got := openOps(c.flags); !slices.Equal(got, c.ops) {
			t.Errorf("openOps(%#x) = %v, want %v", c.flags, got, c.ops)
		}
	}
}

func TestSyscallsPerArch(t *testing.T) {
	x86 := Syscalls(scmp.X86_64)
	for _, name := range []string{"open", "openat", "openat2", "creat", "rename", "renameat2", "linkat", "truncate", "open_by_handle_at"} {
		if !slices.Contains(x86, name) {
			t.Errorf("x86_64: %s missing from %v", name, x86)
		}
	}
	arm := Syscalls(scmp.AArch64)
	if slices.Contains(arm, "open") || slices.Contains(arm, "rename") || !slices.Contains(arm, "openat") {
		t.Errorf("aarch64 has no open or rename, but openat: %v", arm)
	}
}
