//lint:file-ignore SA1019 older JSON profiles still spell a rule's one name "name" (moby keeps Syscall.Name for them)

package containerprofile

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Compare answers "would this agent run under that container profile?":
// per arch, the syscalls (and argument classes) the agent needs that the
// profile denies, those it allows only under a condition compare cannot
// settle, and the reverse: what the profile allows that the agent never
// uses. It reads the profile the way moby's LoadProfile resolves it on a
// host (archMap, includes and excludes by arch, capabilities and kernel)
// and runc loads the rules (comparisons on one argument become
// alternatives), without compiling anything.

// CompareOptions are what a profile's conditional rules depend on.
type CompareOptions struct {
	// Caps are the capabilities the container keeps, as "CAP_SYS_ADMIN".
	// A rule that includes caps applies only when all of them are kept,
	// one that excludes caps only when none is. Empty: an unprivileged
	// container.
	Caps []string
	// Kernel is the kernel the profile will run on, "major.minor" (a
	// release such as "6.18.0-1-amd64" reads as 6.18). Empty leaves a
	// rule with minKernel undecided: what it allows is conditional.
	Kernel string
}

// Need is one syscall or argument class an agent needs on an arch.
type Need struct {
	Key   string
	File  string // the baseline entry that allows it, "" from an observation
	Line  int
	Count uint64 // how often an observation saw it
}

// Needs are what an agent needs, per arch, sorted by key.
type Needs map[scmp.Arch][]Need

// NeedsOfProfile is what a baseline stack allows: its entries, groups and
// unmonitored channels.
func NeedsOfProfile(p *baseline.Profile) Needs {
	n := Needs{}
	for _, arch := range p.Arches() {
		for _, e := range p.Entries(arch) {
			n[arch] = append(n[arch], Need{Key: e.Name, File: e.File, Line: e.Line})
		}
	}
	for _, u := range p.Unmonitored() {
		n[u.Arch] = append(n[u.Arch], Need{Key: u.Syscall, File: u.File, Line: u.Line})
	}
	n.sort()
	return n
}

// NeedsOfObservation is what an observation saw. A check run's
// observation holds only its violations; a record run's holds everything.
func NeedsOfObservation(o *baseline.Observation) Needs {
	n := Needs{}
	for _, arch := range o.Arches() {
		for _, key := range o.Names(arch) {
			n[arch] = append(n[arch], Need{Key: key, Count: o.Count(arch, key)})
		}
	}
	n.sort()
	return n
}

func (n Needs) sort() {
	for _, list := range n {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Key < list[j].Key })
	}
}

// Verdicts of a ProfileDecision.
const (
	VerdictAllowed     = "allowed"
	VerdictDenied      = "denied"
	VerdictConditional = "conditional"
)

// ProfileDecision is what a container profile does with one needed
// syscall or argument class.
type ProfileDecision struct {
	Syscall string `json:"syscall"`
	Verdict string `json:"verdict"`
	// Action is the deciding rule's or the default action, Errno the
	// errno an SCMP_ACT_ERRNO returns ("EPERM").
	Action string `json:"action,omitempty"`
	Errno  string `json:"errno,omitempty"`
	// Rule is the deciding rule ("syscalls[41]", "defaultAction"), at
	// RuleLine of the profile.
	Rule     string `json:"rule,omitempty"`
	RuleLine int    `json:"rule_line,omitempty"`
	Comment  string `json:"comment,omitempty"`
	// Why says it in a sentence.
	Why string `json:"why"`
	// AllowedWith lists conditions under which a rule of the profile
	// would allow a denied syscall ("CAP_SYS_ADMIN", "kernel >= 4.8").
	AllowedWith []string `json:"allowed_with,omitempty"`
	// File and Line: the baseline entry; Count: how often an
	// observation saw it.
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Count uint64 `json:"count,omitempty"`
}

// ArchComparison is the comparison on one arch the agent uses.
type ArchComparison struct {
	Arch scmp.Arch `json:"arch"`
	// Covered is false when the profile lets no call of this arch
	// through: a runtime refuses a foreign ABI outright.
	Covered     bool              `json:"covered"`
	Needed      int               `json:"needed"`
	Allowed     int               `json:"allowed"`
	Denied      []ProfileDecision `json:"denied"`
	Conditional []ProfileDecision `json:"conditional"`
	// Unused are the syscalls of this arch the profile's rules allow and
	// the agent never calls; DefaultAllows means the default action
	// allows everything, so no list is given.
	Unused        []string `json:"unused"`
	DefaultAllows bool     `json:"default_allows,omitempty"`
}

// Comparison is Compare's result.
type Comparison struct {
	Profile       string           `json:"profile"`
	DefaultAction string           `json:"default_action"`
	Caps          []string         `json:"caps"`
	Kernel        string           `json:"kernel,omitempty"`
	Arches        []ArchComparison `json:"arches"`
	// UnusedArches are 32-bit ABIs (i386, x32, arm) the profile lets
	// through beside an arch the agent uses, that the agent never uses.
	UnusedArches []scmp.Arch `json:"unused_arches,omitempty"`
	Warnings     []string    `json:"warnings,omitempty"`
}

// DeniedCount is how many needed syscalls the profile denies, all arches.
func (c *Comparison) DeniedCount() int {
	n := 0
	for _, a := range c.Arches {
		n += len(a.Denied)
	}
	return n
}

// ConditionalCount is how many needed syscalls the profile allows only
// under a condition compare could not settle.
func (c *Comparison) ConditionalCount() int {
	n := 0
	for _, a := range c.Arches {
		n += len(a.Conditional)
	}
	return n
}

// archView is how a profile applies to one of sysgate's arches: whether
// its calls get through to the rules at all, and the host arch name moby
// matches includes/excludes "arches" against.
type archView struct {
	arch    scmp.Arch
	spec    specs.Arch
	native  string
	covered bool
}

// compareArches are sysgate's arches as the runtime spec and libseccomp's
// native names call them; a 32-bit ABI runs on its 64-bit host (parent).
var compareArches = map[scmp.Arch]struct {
	spec   specs.Arch
	native string
	parent scmp.Arch
}{
	scmp.X86_64:  {specs.ArchX86_64, "amd64", 0},
	scmp.I386:    {specs.ArchX86, "x86", scmp.X86_64},
	scmp.X32:     {specs.ArchX32, "x32", scmp.X86_64},
	scmp.AArch64: {specs.ArchAARCH64, "arm64", 0},
	scmp.ARM:     {specs.ArchARM, "arm", scmp.AArch64},
	scmp.RISCV64: {specs.ArchRISCV64, "riscv64", 0},
	scmp.PPC64LE: {specs.ArchPPC64LE, "ppc64le", 0},
	scmp.S390X:   {specs.ArchS390X, "s390x", 0},
}

// view resolves arch as moby does on the host arch runs on: with an
// archMap, the host's entry (the host itself and its sub-arches) is the
// filter's arch list, or the host alone without an entry; with
// "architectures", the list plus the host (libseccomp's native arch is
// always in a filter); with neither, the host alone.
func (cp *ContainerProfile) view(arch scmp.Arch) archView {
	info := compareArches[arch]
	v := archView{arch: arch, spec: info.spec}
	host := arch
	if info.parent != 0 {
		host = info.parent
	}
	s := cp.Spec
	for _, m := range s.ArchMap {
		if m.Arch == info.spec { // mapped as a host of its own
			host = arch
			break
		}
	}
	hostSpec := compareArches[host].spec
	v.native = compareArches[host].native
	switch {
	case len(s.ArchMap) > 0:
		v.covered = host == arch
		for _, m := range s.ArchMap {
			if m.Arch == hostSpec {
				v.covered = v.covered || slices.Contains(m.SubArches, info.spec)
			}
		}
	default:
		v.covered = host == arch || slices.Contains(s.Architectures, info.spec)
	}
	return v
}

// kernelVersion parses "6.18", "6.18.0-1-amd64".
func kernelVersion(s string) (*seccomp.KernelVersion, error) {
	if s == "" {
		return nil, nil
	}
	major, rest, ok := strings.Cut(s, ".")
	minor := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = rest[:i]
	}
	k, err1 := strconv.ParseUint(major, 10, 16)
	m, err2 := strconv.ParseUint(minor, 10, 16)
	if !ok || err1 != nil || err2 != nil || k == 0 {
		return nil, fmt.Errorf("kernel %q: want major.minor, e.g. 6.1", s)
	}
	return &seccomp.KernelVersion{Kernel: k, Major: m}, nil
}

func kernelAtLeast(have, want *seccomp.KernelVersion) bool {
	if have.Kernel != want.Kernel {
		return have.Kernel > want.Kernel
	}
	return have.Major >= want.Major
}

// applicability is whether a rule is part of the filter on an arch.
type applicability struct {
	archOK bool
	// unmet: conditions that keep the rule out, which the user could
	// change (a capability, the kernel); maybe: conditions on the kernel
	// left undecided.
	unmet, maybe []string
}

func (a applicability) applies() bool { return a.archOK && len(a.unmet) == 0 && len(a.maybe) == 0 }
func (a applicability) undecided() bool {
	return a.archOK && len(a.unmet) == 0 && len(a.maybe) > 0
}

// applicable follows moby's setupSeccomp: excludes first (the host arch,
// any kept capability, a kernel at least minKernel), then includes (the
// host arch, every capability, the kernel).
func applicable(r *seccomp.Syscall, v archView, caps []string, kernel *seccomp.KernelVersion) applicability {
	a := applicability{archOK: true}
	kernelIs := func(min *seccomp.KernelVersion, atLeast bool) {
		cond := "kernel < " + min.String()
		if atLeast {
			cond = "kernel >= " + min.String()
		}
		switch {
		case kernel == nil:
			a.maybe = append(a.maybe, cond)
		case kernelAtLeast(kernel, min) != atLeast:
			a.unmet = append(a.unmet, cond)
		}
	}
	if ex := r.Excludes; ex != nil {
		if slices.Contains(ex.Arches, v.native) {
			a.archOK = false
		}
		for _, c := range ex.Caps {
			if slices.Contains(caps, c) {
				a.unmet = append(a.unmet, "without "+c)
			}
		}
		if ex.MinKernel != nil {
			kernelIs(ex.MinKernel, false)
		}
	}
	if in := r.Includes; in != nil {
		if len(in.Arches) > 0 && !slices.Contains(in.Arches, v.native) {
			a.archOK = false
		}
		for _, c := range in.Caps {
			if !slices.Contains(caps, c) {
				a.unmet = append(a.unmet, c)
			}
		}
		if in.MinKernel != nil {
			kernelIs(in.MinKernel, true)
		}
	}
	return a
}

func ruleNames(r *seccomp.Syscall) []string {
	if r.Name != "" {
		return []string{r.Name}
	}
	return r.Names
}

func allows(action specs.LinuxSeccompAction) bool {
	return action == specs.ActAllow || action == specs.ActLog
}

// errnoName names the errno an SCMP_ACT_ERRNO returns: ret, or EPERM
// when unset (runc's default).
func errnoName(action specs.LinuxSeccompAction, ret *uint) string {
	if action != specs.ActErrno {
		return ""
	}
	n := uint(unix.EPERM)
	if ret != nil {
		n = *ret
	}
	if name := unix.ErrnoName(unix.Errno(n)); name != "" {
		return name
	}
	return strconv.FormatUint(uint64(n), 10)
}

// Compare compares what an agent needs with a container profile.
func Compare(cp *ContainerProfile, needs Needs, opts CompareOptions) (*Comparison, error) {
	kernel, err := kernelVersion(opts.Kernel)
	if err != nil {
		return nil, err
	}
	caps := slices.Clone(opts.Caps)
	sort.Strings(caps)
	c := &Comparison{Profile: cp.Path, DefaultAction: string(cp.Spec.DefaultAction), Caps: caps, Warnings: cp.Warnings}
	if caps == nil {
		c.Caps = []string{}
	}
	if kernel != nil {
		c.Kernel = kernel.String()
	}
	arches := make([]scmp.Arch, 0, len(needs))
	for arch, list := range needs {
		if len(list) > 0 {
			arches = append(arches, arch)
		}
	}
	sort.Slice(arches, func(i, j int) bool { return arches[i].String() < arches[j].String() })
	for _, arch := range arches {
		if _, ok := compareArches[arch]; !ok {
			return nil, fmt.Errorf("compare: arch %s has no runtime spec name", arch)
		}
		c.Arches = append(c.Arches, cp.compareArch(cp.view(arch), needs[arch], caps, kernel))
	}
	for _, arch := range []scmp.Arch{scmp.I386, scmp.X32, scmp.ARM} {
		parent := compareArches[arch].parent
		if len(needs[arch]) == 0 && len(needs[parent]) > 0 && cp.view(arch).covered {
			c.UnusedArches = append(c.UnusedArches, arch)
		}
	}
	return c, nil
}

func (cp *ContainerProfile) compareArch(v archView, needs []Need, caps []string, kernel *seccomp.KernelVersion) ArchComparison {
	ac := ArchComparison{Arch: v.arch, Covered: v.covered, Needed: len(needs), Denied: []ProfileDecision{}, Conditional: []ProfileDecision{}, Unused: []string{}}
	used := map[string]bool{}
	for _, n := range needs {
		used[argclass.SyscallOf(n.Key)] = true
		d := cp.decide(v, n.Key, caps, kernel)
		d.File, d.Line, d.Count = n.File, n.Line, n.Count
		switch d.Verdict {
		case VerdictDenied:
			ac.Denied = append(ac.Denied, d)
		case VerdictConditional:
			ac.Conditional = append(ac.Conditional, d)
		default:
			ac.Allowed++
		}
	}
	if !v.covered {
		return ac
	}
	if allows(cp.Spec.DefaultAction) {
		ac.DefaultAllows = true
		return ac
	}
	unused := map[string]bool{}
	for _, r := range cp.Spec.Syscalls {
		if !allows(r.Action) || !applicable(r, v, caps, kernel).applies() {
			continue
		}
		for _, name := range ruleNames(r) {
			if _, known := scmp.Number(v.arch, name); known && !used[name] {
				unused[name] = true
			}
		}
	}
	for name := range unused {
		ac.Unused = append(ac.Unused, name)
	}
	sort.Strings(ac.Unused)
	return ac
}
