package kernel

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SeccompRetLog is the SECCOMP_RET_LOG action: allow the syscall and emit
// an AUDIT_SECCOMP record for it.
const SeccompRetLog = 0x7ffc0000

// LogAllProgram is the smallest record-mode filter: log every syscall of
// every architecture.
var LogAllProgram = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: SeccompRetLog}}

// ExecWithFilter installs prog on the calling thread only (no TSYNC) with a
// raw seccomp(2) (flags: SECCOMP_FILTER_FLAG_*) and execs path right after, with no Go code in between
// that could make a syscall the filter would log. argv and envp must be
// NUL-terminated pointer arrays (unix.BytePtrSliceFromStringSlice plus a
// nil). It only returns on failure; filterLoaded says whether the filter
// was already in place then.
//
// The caller must have set no_new_privs or hold CAP_SYS_ADMIN.
func ExecWithFilter(prog []unix.SockFilter, flags uintptr, path *byte, argv, envp []*byte) (filterLoaded bool, err error) {
	if len(prog) == 0 {
		return false, os.NewSyscallError("seccomp", unix.EINVAL)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return false, os.NewSyscallError("seccomp(SECCOMP_SET_MODE_FILTER)", e)
	}
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envp[0])))
	return true, os.NewSyscallError("execve", e)
}
