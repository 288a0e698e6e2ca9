package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// Flock operations.
const (
	LockShared    = unix.LOCK_SH
	LockExclusive = unix.LOCK_EX
	LockUnlock    = unix.LOCK_UN
)

// Flock applies a flock(2) operation (LockShared, LockExclusive,
// LockUnlock) to f, waiting as long as it takes and retrying when a
// signal interrupts the wait (EINTR).
func Flock(f *os.File, how int) error {
	return os.NewSyscallError("flock", retryEINTR(func() error { return unix.Flock(int(f.Fd()), how) }))
}

// retryEINTR calls fn until it returns something other than EINTR.
func retryEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}

// TryFlock applies a flock(2) lock (LockShared or LockExclusive) to f
// without waiting: false when another holder keeps it.
func TryFlock(f *os.File, how int) (bool, error) {
	err := retryEINTR(func() error { return unix.Flock(int(f.Fd()), how|unix.LOCK_NB) })
	if err == unix.EWOULDBLOCK {
		return false, nil
	}
	if err != nil {
		return false, os.NewSyscallError("flock", err)
	}
	return true, nil
}
