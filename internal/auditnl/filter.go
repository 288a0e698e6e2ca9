package auditnl

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Offsets into struct seccomp_data (little-endian: args[0]'s low word).
const (
	offNr    = 0
	offArch  = 4
	offArg0  = 16
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K
)

// Filter is a classic BPF seccomp program.
type Filter []unix.SockFilter

// LogOneSyscall returns a seccomp program that logs syscall nr on auditArch
// (only when its first argument's low 32 bits equal arg0, if matchArg) and
// allows everything else.
func LogOneSyscall(auditArch uint32, nr int, matchArg bool, arg0 uint32) Filter {
	allow := unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW}
	logIt := unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_LOG}
	prog := Filter{
		{Code: bpfLdAbs, K: offArch},
		{Code: bpfJeq, K: auditArch, Jt: 0, Jf: 0}, // Jf patched below
		{Code: bpfLdAbs, K: offNr},
		{Code: bpfJeq, K: uint32(nr), Jt: 0, Jf: 0},
	}
	if matchArg {
		prog = append(prog,
			unix.SockFilter{Code: bpfLdAbs, K: offArg0},
			unix.SockFilter{Code: bpfJeq, K: arg0, Jt: 0, Jf: 0})
	}
	prog = append(prog, logIt, allow)
	// Every failed comparison jumps to the final ALLOW.
	for i := range prog {
		if prog[i].Code == bpfJeq {
			prog[i].Jf = uint8(len(prog) - 1 - (i + 1))
		}
	}
	return prog
}

// InstallThreadFilter loads prog on the calling OS thread only (no TSYNC),
// after setting no_new_privs on that thread. The caller must have locked
// the goroutine to its thread and should let the thread die afterwards
// (return without runtime.UnlockOSThread), so the filter never serves
// other goroutines. Root could load it without no_new_privs (it has
// CAP_SYS_ADMIN; checked on this kernel), but the flag costs nothing on a
// thread about to die and lets a process without CAP_SYS_ADMIN do it.
func InstallThreadFilter(prog Filter) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return os.NewSyscallError("seccomp(SECCOMP_SET_MODE_FILTER)", errno)
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

// Getppid makes the getppid syscall with a first argument the kernel
// ignores but a filter can match.
func Getppid(arg0 uint32) {
	unix.RawSyscall(unix.SYS_GETPPID, uintptr(arg0), 0, 0)
}

// GetppidNr is getppid's number on this architecture.
const GetppidNr = unix.SYS_GETPPID
