package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestContentCacheRehashesARewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tool.sh")
	write := func(content string) string {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256([]byte(content))
		return hex.EncodeToString(s[:])
	}
	c := NewContentCache(16)
	sum := func() string {
		t.Helper()
		_, s, err := c.SumFile(path, SumCached)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := write("#!/bin/sh\nexit 0\n")
	if got := sum(); got != first || c.Reads != 1 {
		t.Fatalf("sum %s (want %s), %d reads", got, first, c.Reads)
	}
	if got := sum(); got != first || c.Reads != 1 {
		t.Fatalf("unchanged file: sum %s, %d reads (want it cached)", got, c.Reads)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// The same size at once (within a timestamp tick), and the mtime
	// set back as a hostile agent would: the ctime still moves.
	second := write("#!/bin/sh\nexit 1\n")
	if err := os.Chtimes(path, time.Time{}, st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := sum(); got != second || c.Reads != 2 {
		t.Fatalf("rewritten file: sum %s (want %s), %d reads", got, second, c.Reads)
	}
}

func TestContentCacheForgetsWhenFull(t *testing.T) {
	dir := t.TempDir()
	c := NewContentCache(2)
	for i, name := range []string{"a", "b", "c", "a"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil && i < 3 {
			t.Fatal(err)
		}
		if _, _, err := c.SumFile(p, SumCached); err != nil {
			t.Fatal(err)
		}
		if len(c.sums) > 2 {
			t.Fatalf("%d keys held, max 2", len(c.sums))
		}
	}
}

// Issue 43, item 6: a rewrite through a MAP_SHARED mapping on tmpfs,
// of a page read first, keeps the size, the mtime and the ctime: the
// key holds, the content does not. SumFresh reads the file, and from then on no caller gets
// the file from the cache.
func TestContentCacheFreshForAMappedRewrite(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "sysgate-content-")
	if err != nil {
		t.Fatalf("a tmpfs directory (/dev/shm): %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "tool.sh")
	before, after := "#!/bin/sh\necho benign\n", "#!/bin/sh\necho escape\n"
	if err := os.WriteFile(path, []byte(before), 0o755); err != nil {
		t.Fatal(err)
	}
	hex256 := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	c := NewContentCache(16)
	sum := func(how Sum) string {
		t.Helper()
		_, s, err := c.SumFile(path, how)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := sum(SumCached); got != hex256(before) {
		t.Fatalf("first sum %s, want %s", got, hex256(before))
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, len(before), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Read first: the read fault maps the page writable (tmpfs asks
	// for no write notification), so the write takes no fault, and the
	// kernel's file_update_time on a shared write fault never runs.
	if string(m) != before {
		t.Fatalf("mapped %q", m)
	}
	copy(m, after)
	if err := unix.Munmap(m); err != nil {
		t.Fatal(err)
	}
	// The hole: the key still holds.
	if got := sum(SumCached); got != hex256(before) {
		t.Fatalf("cached sum after the mapped rewrite %s: the key changed, the spec proves nothing", got)
	}
	if got := sum(SumFresh); got != hex256(after) {
		t.Fatalf("fresh sum %s, want %s", got, hex256(after))
	}
	if got := sum(SumCached); got != hex256(after) || c.Reads != 3 {
		t.Fatalf("cached sum of a file once hashed fresh: %s, %d reads; want %s read again", got, c.Reads, hex256(after))
	}
}

// On a file system whose shared write faults move the times (the
// checkout's, ext4 here), the same mapped rewrite changes the key, so
// SumFresh may come from the cache there and still sees the new content;
// elsewhere SumFresh reads the file at every call.
func TestContentCacheFreshTrustsFileSystemsThatMoveTimes(t *testing.T) {
	dir, err := os.MkdirTemp(".", "content-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "tool.sh")
	before, after := "#!/bin/sh\necho benign\n", "#!/bin/sh\necho escape\n"
	if err := os.WriteFile(path, []byte(before), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	moves := MappedWritesMoveTimes(int(f.Fd()))
	hex256 := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	c := NewContentCache(16)
	sum := func() string {
		t.Helper()
		_, s, err := c.SumFile(path, SumFresh)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sum()
	if got := sum(); got != hex256(before) {
		t.Fatalf("sum %s, want %s", got, hex256(before))
	}
	if want := map[bool]int{true: 1, false: 2}[moves]; c.Reads != want {
		t.Fatalf("times move on mapped writes here: %v; %d reads of an unchanged file, want %d", moves, c.Reads, want)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, len(before), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	if string(m) != before { // the read fault first, as the attack does
		t.Fatalf("mapped %q", m)
	}
	copy(m, after)
	if err := unix.Munmap(m); err != nil {
		t.Fatal(err)
	}
	if got := sum(); got != hex256(after) {
		t.Fatalf("after a mapped rewrite (times move: %v): sum %s, want %s", moves, got, hex256(after))
	}
}
