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

// SetNonDumpable marks the calling process non-dumpable: no core dump, its
// /proc files belong to root, and only a process with CAP_SYS_PTRACE may
// ptrace it or open its memory, even one of the same uid. It holds for the
// whole process (the flag belongs to the memory map), until it execs.
func SetNonDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_SET_DUMPABLE)", err)
	}
	return nil
}

// Dumpable reports the calling process's dumpable flag.
func Dumpable() (bool, error) {
	n, _, errno := unix.Syscall6(unix.SYS_PRCTL, unix.PR_GET_DUMPABLE, 0, 0, 0, 0, 0)
	if errno != 0 {
		return false, os.NewSyscallError("prctl(PR_GET_DUMPABLE)", errno)
	}
	return n != 0, nil
}
