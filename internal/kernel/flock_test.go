package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRetryEINTR(t *testing.T) {
	calls := 0
	err := retryEINTR(func() error {
		calls++
		if calls < 3 {
			return unix.EINTR
		}
		return unix.EWOULDBLOCK
	})
	if calls != 3 || err != unix.EWOULDBLOCK {
		t.Errorf("%d calls, err %v; want 3 calls ending in EWOULDBLOCK", calls, err)
	}
	calls = 0
	if err := retryEINTR(func() error { calls++; return nil }); err != nil || calls != 1 {
		t.Errorf("%d calls, err %v; want one successful call", calls, err)
	}
}

// Two opens of one file are two locks: the second waits for the first.
func TestFlockWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := Flock(a, LockExclusive); err != nil {
		t.Fatal(err)
	}
	if err := Flock(b, LockShared|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Fatalf("shared lock beside an exclusive one: %v, want EWOULDBLOCK", err)
	}
	got := make(chan error, 1)
	go func() { got <- Flock(b, LockShared) }()
	if err := Flock(a, LockUnlock); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}
