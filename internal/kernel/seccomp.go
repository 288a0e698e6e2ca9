package kernel

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SeccompRetLog is the SECCOMP_RET_LOG action: allow the syscall and emit
// an AUDIT_SECCOMP record for it.
const SeccompRetLog = 0x7ffc0000

// LogAllProgram is the smallest record-mode filter: log every syscall of
// every architecture.
var LogAllProgram = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: SeccompRetLog}}

// LoadSeccompFilter installs prog on the calling thread with a raw
// seccomp(SECCOMP_SET_MODE_FILTER) and flags (SECCOMP_FILTER_FLAG_*;
// without TSYNC only this thread gets it). It is the one seccomp load of
// the Go side, for the audit barrier's sentinel, the benchmark's loader
// and ExecWithFilter; the vfork launcher (spawn.c) makes the same call in
// C, where no Go code may run. It makes no other syscall, so a caller may
// exec right after without a logged syscall in between.
//
// The caller must have set no_new_privs or hold CAP_SYS_ADMIN, and should
// have locked its goroutine to the thread.
func LoadSeccompFilter(prog []unix.SockFilter, flags uint) error {
	if len(prog) == 0 {
		return os.NewSyscallError("seccomp", unix.EINVAL)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, uintptr(flags), uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return os.NewSyscallError("seccomp(SECCOMP_SET_MODE_FILTER)", e)
	}
	return nil
}

// GetppidNr is getppid's number on this architecture: the audit barrier's
// marker syscall.
const GetppidNr = unix.SYS_GETPPID

// Getppid makes the getppid syscall with a first argument the kernel
// ignores but a seccomp filter can match (the barrier's marker). The error
// is what a filter made of it (getppid itself cannot fail).
func Getppid(arg0 uint32) error {
	if _, _, e := unix.RawSyscall(unix.SYS_GETPPID, uintptr(arg0), 0, 0); e != 0 {
		return os.NewSyscallError("getppid", e)
	}
	return nil
}
