package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
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
		_, s, err := c.SumFile(path)
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
		if _, _, err := c.SumFile(p); err != nil {
			t.Fatal(err)
		}
		if len(c.sums) > 2 {
			t.Fatalf("%d keys held, max 2", len(c.sums))
		}
	}
}
