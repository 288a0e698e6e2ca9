package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Errno values an exported profile's default action can return. Linux
// numbers them alike on every arch sysgate knows.
const (
	ErrnoEPERM  uint = 1  // the syscall exists and is refused
	ErrnoENOSYS uint = 38 // the syscall does not exist: libc falls back to an older one
)

// maxErrno is the kernel's MAX_ERRNO: a larger SECCOMP_RET_ERRNO value
// would not read as an error in the caller.
const maxErrno = 4095

// OCIOptions tune ExportOCI.
type OCIOptions struct {
	// Default is the action for syscalls outside the profile: ActionErrno
	// (the default when zero), ActionKill or ActionLog (audit what the
	// container does beyond the profile without refusing it).
	Default baseline.Action
	// Errno is the defaultErrnoRet of ActionErrno; 0 means ErrnoEPERM.
	// Only ActionErrno takes one.
	Errno uint
}

// ParseErrno reads an errno for OCIOptions.Errno: "EPERM", "ENOSYS" or a
// number from 1 to 4095.
func ParseErrno(s string) (uint, error) {
	switch strings.ToUpper(s) {
	case "EPERM":
		return ErrnoEPERM, nil
	case "ENOSYS":
		return ErrnoENOSYS, nil
	}
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 || n > maxErrno {
		return 0, fmt.Errorf("errno %q: want EPERM, ENOSYS or a number from 1 to %d", s, maxErrno)
	}
	return uint(n), nil
}

// ociFamily is how an arch appears in an OCI profile: its libseccomp
// name, and the native arch whose archMap entry lists it (itself, or the
// 64-bit arch it is a sub-architecture of, as moby's default profile has
// them: x86_64 with x86 and x32, aarch64 with arm).
type ociFamily struct {
	spec   specs.Arch
	native scmp.Arch
}

var ociArches = map[scmp.Arch]ociFamily{
	scmp.X86_64:  {specs.ArchX86_64, scmp.X86_64},
	scmp.I386:    {specs.ArchX86, scmp.X86_64},
	scmp.X32:     {specs.ArchX32, scmp.X86_64},
	scmp.AArch64: {specs.ArchAARCH64, scmp.AArch64},
	scmp.ARM:     {specs.ArchARM, scmp.AArch64},
	scmp.RISCV64: {specs.ArchRISCV64, scmp.RISCV64},
	scmp.PPC64LE: {specs.ArchPPC64LE, scmp.PPC64LE},
	scmp.S390X:   {specs.ArchS390X, scmp.S390X},
}

// mobyNative are the names includes.arches matches: moby's LoadProfile
// compares them with the host's native arch as libseccomp spells it
// (goToNative in github.com/moby/profiles/seccomp seccomp_linux.go), so a
// rule's includes select a native arch and apply to its sub-arches too.
var mobyNative = map[scmp.Arch]string{
	scmp.X86_64:  "amd64",
	scmp.AArch64: "arm64",
	scmp.RISCV64: "riscv64",
	scmp.PPC64LE: "ppc64le",
	scmp.S390X:   "s390x",
}

// ExportOCI renders p as an OCI seccomp profile in the form Docker's and
// Podman's default profiles have (moby's Seccomp: the runtime spec's
// LinuxSeccomp with archMap, and rules with includes and comment), as
// indented JSON with a trailing newline. It is built from the Profile,
// never from a compiled filter, so it carries names and not numbers.
func ExportOCI(p *baseline.Profile, opts OCIOptions) ([]byte, error) {
	prof, err := buildOCI(p, opts)
	if err != nil {
		return nil, err
	}
	data, err := encodeOCI(prof)
	if err != nil {
		return nil, fmt.Errorf("export oci: %w", err)
	}
	return data, nil
}

// encodeOCI is ExportOCI's encoding, shared with the round-trip test.
func encodeOCI(prof *mobyseccomp.Seccomp) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(prof); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// buildOCI returns the profile ExportOCI renders.
//
//   - archMap lists each native arch of the baseline with the baseline's
//     sub-arches of it; no top-level architectures (moby refuses both).
//   - A syscall allowed on every native arch is in a rule without
//     includes; one allowed on some has includes.arches naming them. A
//     native arch and its sub-arches share their rules (includes select by
//     the host's native arch): their lists are unioned.
//   - Entries with a reason get rules of their own with it as comment;
//     a group's entries share a rule commented with the group's name and
//     reason.
//   - An argument class is a rule with args (SCMP_CMP_MASKED_EQ, value the
//     mask, valueTwo the value, as runc passes them to libseccomp), one
//     rule per alternative of the class; an argument-blind entry of the
//     syscall on the same native arch makes them moot.
//
// A runtime that reads the file as a plain LinuxSeccomp (containerd)
// ignores archMap, includes and comment: it applies every rule on its
// native arch, the union of the arches' lists.
func buildOCI(p *baseline.Profile, opts OCIOptions) (*mobyseccomp.Seccomp, error) {
	prof := &mobyseccomp.Seccomp{}
	switch opts.Default {
	case 0, baseline.ActionErrno:
		errno := opts.Errno
		if errno == 0 {
			errno = ErrnoEPERM
		}
		if errno > maxErrno {
			return nil, fmt.Errorf("export oci: errno %d is above %d", errno, maxErrno)
		}
		prof.DefaultAction, prof.DefaultErrnoRet = specs.ActErrno, &errno
	case baseline.ActionKill:
		prof.DefaultAction = specs.ActKillProcess
	case baseline.ActionLog:
		prof.DefaultAction = specs.ActLog
	default:
		return nil, fmt.Errorf("export oci: unknown default action %s", opts.Default)
	}
	if opts.Errno != 0 && prof.DefaultErrnoRet == nil {
		return nil, fmt.Errorf("export oci: an errno goes with the errno default action, not %s", opts.Default)
	}
	gs, err := grantsOf(p, "export oci")
	if err != nil {
		return nil, err
	}
	subs := map[scmp.Arch][]specs.Arch{}
	for _, arch := range p.Arches() {
		f := ociArches[arch]
		if _, ok := subs[f.native]; !ok {
			subs[f.native] = nil
		}
		if arch != f.native {
			subs[f.native] = append(subs[f.native], f.spec)
		}
	}
	natives := make([]scmp.Arch, 0, len(subs))
	for a := range subs {
		natives = append(natives, a)
	}
	sort.Slice(natives, func(i, j int) bool { return natives[i].String() < natives[j].String() })
	for _, a := range natives {
		slices.Sort(subs[a])
		prof.ArchMap = append(prof.ArchMap, mobyseccomp.Architecture{Arch: ociArches[a].spec, SubArches: subs[a]})
	}
	scope := func(a scmp.Arch) string { return mobyNative[ociArches[a].native] }
	arches := func(m mergedGrant) string {
		if len(m.scopes) == len(natives) {
			return ""
		}
		return strings.Join(m.scopes, ",")
	}
	for _, r := range groupRules(mergeGrants(gs, scope), arches) {
		rule := &mobyseccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{Names: r.names, Action: specs.ActAllow, Args: r.first.args}, Comment: r.comment}
		if r.arches != "" {
			rule.Includes = &mobyseccomp.Filter{Arches: r.first.scopes}
		}
		prof.Syscalls = append(prof.Syscalls, rule)
	}
	return prof, nil
}
