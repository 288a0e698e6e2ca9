package kernel

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetNoNewPrivs sets no_new_privs: execve can no longer grant privileges
// (set-uid bits, file capabilities), which also lets an unprivileged task
// install a seccomp filter.
func SetNoNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", err)
	}
	return nil
}

// SetThreadName sets the calling thread's comm (at most 15 bytes), which
// audit records report.
func SetThreadName(name string) error {
	b := make([]byte, 16)
	copy(b[:15], name)
	err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
	runtime.KeepAlive(b)
	return os.NewSyscallError("prctl(PR_SET_NAME)", err)
}

// OnMainThread reports whether the calling goroutine runs on the
// process's main thread (tid == pid).
func OnMainThread() bool { return unix.Gettid() == unix.Getpid() }
