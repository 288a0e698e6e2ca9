package landlock

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// ErrNotSupported is matched by every error that says this kernel cannot
// enforce Landlock rules.
var ErrNotSupported = errors.New("landlock not supported")

// UnsupportedError names what is missing and the fix.
type UnsupportedError struct {
	Feature string
	Fix     string
	Err     error
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %v (fix: %s)", e.Feature, e.Err, e.Fix)
}

// Is matches ErrNotSupported.
func (e *UnsupportedError) Is(target error) bool { return target == ErrNotSupported }

// Unwrap returns the errno.
func (e *UnsupportedError) Unwrap() error { return e.Err }

// ABI returns the highest Landlock ABI version the kernel supports (7 on
// Linux 6.15+). It asks the kernel once per process: the answer cannot
// change while the system runs.
func ABI() (int, error) { return probeABI() }

var probeABI = sync.OnceValues(func() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case 0:
		return int(v), nil
	case unix.ENOSYS:
		return 0, &UnsupportedError{
			Feature: "landlock",
			Fix:     "a kernel built with CONFIG_SECURITY_LANDLOCK (5.13+)",
			Err:     os.NewSyscallError("landlock_create_ruleset", errno),
		}
	case unix.EOPNOTSUPP:
		return 0, &UnsupportedError{
			Feature: "landlock",
			Fix:     "enable it at boot: add landlock to the lsm= kernel parameter",
			Err:     os.NewSyscallError("landlock_create_ruleset", errno),
		}
	default:
		return 0, os.NewSyscallError("landlock_create_ruleset", errno)
	}
})
