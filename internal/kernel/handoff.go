package kernel

import (
	"encoding/binary"
	"runtime"

	"golang.org/x/sys/unix"
)

// seccomp_data offsets (struct seccomp_data: nr, arch, instruction_pointer,
// args[6]); the 64-bit fields are read as two words in the machine's
// byte order.
const (
	dataNr   = 0
	dataArch = 4
	dataIP   = 8
	dataArg0 = 16
)

// handoffPrefix is prepended to a notify filter: it allows write and
// sendmsg on the status socket (fd status) from the handoff instruction
// (ip, see spawn.c) of the native arch, and leaves every other call to the
// filter. The agent's first process sends the listener through that
// instruction after loading the filter and before sysgate holds the
// listener: a notified send there would wait for an answer nobody can
// give. After the execve no code sits at ip that sysgate did not map, and
// the status socket is closed.
func handoffPrefix(ip uint64, status uint32) []unix.SockFilter {
	lo, hi := uint32(ip), uint32(ip>>32)
	ipLo, ipHi := uint32(dataIP), uint32(dataIP+4)
	argLo := uint32(dataArg0)
	if binary.NativeEndian.Uint16([]byte{0, 1}) == 1 { // big endian: the high word first
		ipLo, ipHi = ipHi, ipLo
		argLo += 4
	}
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	// jeq k: fall through on a match, else jump to the end of the prefix
	// (rest: how many instructions follow this one in the prefix).
	jeq := func(k uint32, rest int) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jf: uint8(rest)}
	}
	const n = 12 // the filter proper starts at n
	prog := []unix.SockFilter{
		ld(dataArch),                // 0
		jeq(nativeAuditArch(), n-2), // 1
		ld(dataNr),                  // 2
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_SENDMSG, Jt: 1}, // 3: to 5
		jeq(unix.SYS_WRITE, n-5), // 4
		ld(ipLo),                 // 5
		jeq(lo, n-7),             // 6
		ld(ipHi),                 // 7
		jeq(hi, n-9),             // 8
		ld(argLo),                // 9
		jeq(status, n-11),        // 10
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}, // 11
	}
	return prog
}

// nativeAuditArch is the AUDIT_ARCH_* of the arches spawn.c is written for.
func nativeAuditArch() uint32 {
	if runtime.GOARCH == "arm64" {
		return unix.AUDIT_ARCH_AARCH64
	}
	return unix.AUDIT_ARCH_X86_64
}
