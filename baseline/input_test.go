package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestReadInputRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxInputSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "FIFO"},
		{"/dev/zero", "character device"},
		{dir, "directory"},
		{big, "MiB limit"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadInput(c.path); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadInput(%s) = %v; want ErrBadInput naming the path and %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadInput(%s) still blocks", c.path)
		}
	}
}

func TestReadInputReadsARegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.yaml")
	if err := os.WriteFile(path, []byte("version: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := ReadInput(path)
	if err != nil || string(data) != "version: 1\n" {
		t.Fatalf("ReadInput = %q, %v", data, err)
	}
	if _, err := ReadInput(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v, want ErrNotExist", err)
	}
}
