package barrier

import "golang.org/x/sys/unix"

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
