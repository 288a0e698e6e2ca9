//go:build linux && cgo

package scmp

import (
	"fmt"

	seccomp "github.com/seccomp/libseccomp-golang"
)

// libseccompArch is libseccomp's identifier for each Arch, for the filter
// compiler and the table generator; the rest of scmp needs no cgo.
var libseccompArch = map[Arch]seccomp.ScmpArch{
	X86_64:  seccomp.ArchAMD64,
	I386:    seccomp.ArchX86,
	X32:     seccomp.ArchX32,
	AArch64: seccomp.ArchARM64,
	ARM:     seccomp.ArchARM,
	RISCV64: seccomp.ArchRISCV64,
	PPC64LE: seccomp.ArchPPC64LE,
	S390X:   seccomp.ArchS390X,
}

// Libseccomp returns libseccomp's identifier for a (ArchInvalid for an
// unknown one).
func (a Arch) Libseccomp() seccomp.ScmpArch {
	if arch, ok := libseccompArch[a]; ok {
		return arch
	}
	return seccomp.ArchInvalid
}

// probeRanges are the syscall numbers LibseccompSyscalls asks about: the
// regular numbers, the x32 range and ARM's private syscalls.
func probeRanges(a Arch) [][2]int {
	switch a {
	case X32:
		return [][2]int{{x32SyscallBit, x32SyscallBit + 1024}}
	case ARM:
		return [][2]int{{0, 1024}, {0x0f0000, 0x0f0010}}
	}
	return [][2]int{{0, 1024}}
}

// LibseccompSyscalls asks the installed libseccomp for the name of every
// number in a's probe ranges, in order; a name it gives two numbers keeps
// the first, so each name maps back to one number. The generator of
// zsyscalls_*_table.go writes this out; nothing else at run time asks.
func LibseccompSyscalls(a Arch) []Syscall {
	var table []Syscall
	seen := map[string]bool{}
	for _, r := range probeRanges(a) {
		for nr := r[0]; nr < r[1]; nr++ {
			name, err := seccomp.ScmpSyscall(nr).GetNameByArch(a.Libseccomp())
			if err != nil || name == "" || seen[name] {
				continue
			}
			seen[name] = true
			table = append(table, Syscall{nr, name})
		}
	}
	return table
}

// LibseccompVersion names the libseccomp in use, as "libseccomp 2.5.4".
func LibseccompVersion() string {
	major, minor, micro := seccomp.GetLibraryVersion()
	return fmt.Sprintf("libseccomp %d.%d.%d", major, minor, micro)
}
