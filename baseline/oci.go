package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/sysgate/sysgate/internal/scmp"
)

// OCIProfile is the seccomp section of the OCI runtime spec (LinuxSeccomp),
// the format Docker, Podman, containerd and Kubernetes load.
type OCIProfile struct {
	DefaultAction   string           `json:"defaultAction"`
	DefaultErrnoRet *uint            `json:"defaultErrnoRet,omitempty"`
	Architectures   []string         `json:"architectures,omitempty"`
	Flags           []string         `json:"flags,omitempty"`
	Syscalls        []OCISyscallRule `json:"syscalls,omitempty"`
}

// OCISyscallRule is LinuxSyscall: names with one action.
type OCISyscallRule struct {
	Names    []string `json:"names"`
	Action   string   `json:"action"`
	ErrnoRet *uint    `json:"errnoRet,omitempty"`
	Args     []OCIArg `json:"args,omitempty"`
}

// OCIArg is LinuxSeccompArg. An argument class exports as masked
// comparisons: Op SCMP_CMP_MASKED_EQ, Value the mask, ValueTwo the value
// (runc passes them to libseccomp in that order).
type OCIArg struct {
	Index    uint   `json:"index"`
	Value    uint64 `json:"value"`
	ValueTwo uint64 `json:"valueTwo,omitempty"`
	Op       string `json:"op"`
}

// OCIOptions tune ExportOCI.
type OCIOptions struct {
	// Default is the action for syscalls outside the profile: ActionErrno
	// (EPERM; the default when zero), ActionKill or ActionLog (audit what
	// the container does beyond the profile without refusing it).
	Default Action
}

// ociArch maps sysgate's arch names to the runtime spec's.
var ociArch = map[scmp.Arch]string{
	scmp.X86_64:  "SCMP_ARCH_X86_64",
	scmp.I386:    "SCMP_ARCH_X86",
	scmp.X32:     "SCMP_ARCH_X32",
	scmp.AArch64: "SCMP_ARCH_AARCH64",
	scmp.ARM:     "SCMP_ARCH_ARM",
	scmp.RISCV64: "SCMP_ARCH_RISCV64",
	scmp.PPC64LE: "SCMP_ARCH_PPC64LE",
	scmp.S390X:   "SCMP_ARCH_S390X",
}

// ExportOCI renders p as an OCI seccomp profile (indented JSON with a
// trailing newline). The runtime spec has no per-arch rules, so the allow
// rule lists the union of the arches' names; a name an arch does not have
// is skipped by the runtime on that arch. It is built from the Profile,
// never from a compiled filter, so it carries names and not numbers.
func ExportOCI(p *Profile, opts OCIOptions) ([]byte, error) {
	prof, err := BuildOCI(p, opts)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(prof); err != nil {
		return nil, fmt.Errorf("export oci: %w", err)
	}
	return b.Bytes(), nil
}

// BuildOCI returns the profile ExportOCI renders.
func BuildOCI(p *Profile, opts OCIOptions) (*OCIProfile, error) {
	arches := p.Arches()
	if len(arches) == 0 {
		return nil, fmt.Errorf("export oci: %w: the baseline allows no syscalls", ErrInvalid)
	}
	prof := &OCIProfile{}
	eperm := uint(1)
	switch opts.Default {
	case 0, ActionErrno:
		prof.DefaultAction, prof.DefaultErrnoRet = "SCMP_ACT_ERRNO", &eperm
	case ActionKill:
		prof.DefaultAction = "SCMP_ACT_KILL_PROCESS"
	case ActionLog:
		prof.DefaultAction = "SCMP_ACT_LOG"
	default:
		return nil, fmt.Errorf("export oci: unknown default action %s", opts.Default)
	}
	names := map[string]bool{}
	// classed: a class's rules, by the JSON of its comparisons, with the
	// syscalls they allow; the spec has no per-arch rules, so a class
	// listed on several arches exports once.
	classed := map[string]*OCISyscallRule{}
	for _, arch := range arches {
		name, ok := ociArch[arch]
		if !ok {
			return nil, fmt.Errorf("export oci: no OCI name for arch %s", arch)
		}
		prof.Architectures = append(prof.Architectures, name)
		for _, e := range p.Entries(arch) {
			sys, class := SplitKey(e.Name)
			if class == "" || p.Allows(arch, sys) {
				names[sys] = true
				continue
			}
			for _, alt := range classMatch(arch, e.Name) {
				args := make([]OCIArg, 0, len(alt))
				for _, c := range alt {
					args = append(args, OCIArg{Index: c.Arg, Value: c.Mask, ValueTwo: c.Value, Op: "SCMP_CMP_MASKED_EQ"})
				}
				key, _ := json.Marshal(args)
				r := classed[string(key)]
				if r == nil {
					r = &OCISyscallRule{Action: "SCMP_ACT_ALLOW", Args: args}
					classed[string(key)] = r
				}
				if !slices.Contains(r.Names, sys) {
					r.Names = append(r.Names, sys)
				}
			}
		}
	}
	sort.Strings(prof.Architectures)
	rule := OCISyscallRule{Action: "SCMP_ACT_ALLOW"}
	for name := range names {
		rule.Names = append(rule.Names, name)
	}
	sort.Strings(rule.Names)
	prof.Syscalls = []OCISyscallRule{rule}
	var rest []OCISyscallRule
	for _, r := range classed {
		var kept []string
		for _, n := range r.Names {
			if !names[n] { // an argument-blind entry on another arch allows it all
				kept = append(kept, n)
			}
		}
		if len(kept) > 0 {
			sort.Strings(kept)
			r.Names = kept
			rest = append(rest, *r)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		a, _ := json.Marshal(rest[i])
		b, _ := json.Marshal(rest[j])
		return string(a) < string(b)
	})
	prof.Syscalls = append(prof.Syscalls, rest...)
	return prof, nil
}
