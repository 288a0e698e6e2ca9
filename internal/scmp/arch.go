package scmp

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// ErrUnknownArch is returned for an architecture name sysgate does not know.
var ErrUnknownArch = errors.New("unknown architecture")

// Arch is a syscall ABI as the kernel's audit records and baseline files name
// it. The zero value is invalid.
type Arch uint8

// The architectures sysgate can name. x32 shares the x86_64 audit arch and is
// told apart by bit 30 of the syscall number.
const (
	X86_64 Arch = iota + 1
	I386
	X32
	AArch64
	ARM
	RISCV64
	PPC64LE
	S390X
)

type archInfo struct {
	name   string // as in baseline files and uname -m
	audit  uint32 // AUDIT_ARCH_* value in type-1326 records
	goarch string
}

const x32SyscallBit = 0x40000000

var archTable = map[Arch]archInfo{
	X86_64:  {"x86_64", 0xc000003e, "amd64"},
	I386:    {"i386", 0x40000003, "386"},
	X32:     {"x32", 0xc000003e, ""},
	AArch64: {"aarch64", 0xc00000b7, "arm64"},
	ARM:     {"arm", 0x40000028, "arm"},
	RISCV64: {"riscv64", 0xc00000f3, "riscv64"},
	PPC64LE: {"ppc64le", 0xc0000015, "ppc64le"},
	S390X:   {"s390x", 0x80000016, "s390x"},
}

// String returns the name baseline files use ("x86_64", "aarch64", ...).
func (a Arch) String() string {
	if info, ok := archTable[a]; ok {
		return info.name
	}
	return fmt.Sprintf("arch(%d)", uint8(a))
}

// Valid reports whether a is one of the known architectures.
func (a Arch) Valid() bool {
	_, ok := archTable[a]
	return ok
}

// AuditArch returns the AUDIT_ARCH_* value the kernel reports for a.
func (a Arch) AuditArch() uint32 { return archTable[a].audit }

// MarshalText writes the baseline-file name, so maps keyed by Arch encode
// as readable JSON.
func (a Arch) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("marshal arch: %w: %d", ErrUnknownArch, uint8(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText is the inverse of MarshalText.
func (a *Arch) UnmarshalText(b []byte) error {
	v, err := ParseArch(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// ArchNames lists every known architecture name, sorted.
func ArchNames() []string {
	names := make([]string, 0, len(archTable))
	for _, info := range archTable {
		names = append(names, info.name)
	}
	sort.Strings(names)
	return names
}

// ParseArch maps a baseline-file name to an Arch. Only the canonical names
// are accepted, so one architecture never appears under two spellings.
func ParseArch(name string) (Arch, error) {
	for a, info := range archTable {
		if info.name == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%w %q (known: %s)", ErrUnknownArch, name, strings.Join(ArchNames(), ", "))
}

// Native returns the architecture of the running Go binary.
func Native() Arch {
	for a, info := range archTable {
		if info.goarch == runtime.GOARCH {
			return a
		}
	}
	return 0
}

// FromAudit splits an audit record's arch and syscall fields into an Arch
// and the syscall number within it. ok is false for an arch value sysgate
// does not know; callers keep the raw values then.
func FromAudit(auditArch uint32, nr int) (arch Arch, number int, ok bool) {
	switch auditArch {
	case 0xc000003e:
		if nr >= 0 && nr&x32SyscallBit != 0 {
			return X32, nr, true
		}
		return X86_64, nr, true
	}
	for a, info := range archTable {
		if a != X32 && info.audit == auditArch {
			return a, nr, true
		}
	}
	return 0, nr, false
}
