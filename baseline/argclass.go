package baseline

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sysgate/sysgate/internal/scmp"
)

// An argument class splits one syscall by what its register arguments say
// it does: socket by address family, openat by read, write or create,
// clone by the namespaces it creates. A baseline line names one class,
// "socket(AF_UNIX)"; a line without parentheses, "socket", is argument
// blind and allows the syscall with any arguments.
//
// The filter compares register values only (masked, as libseccomp's
// SCMP_CMP_MASKED_EQ), never the memory they point to: paths, clone3's and
// openat2's structs and socketcall's argument array are out of its reach.
// Every class below is therefore defined by masked comparisons alone, and
// Classify, which names the class of a call from its registers, must agree
// with the comparisons that Matches returns: the tests check both against
// each other through libseccomp's compiled filter.

// argCmp is one masked comparison: (arg[Arg] & Mask) == Value.
type argCmp struct {
	Arg   uint
	Mask  uint64
	Value uint64
}

// argSplit is how one syscall's arguments split into classes on one arch.
type argSplit struct {
	// What names the argument: "address family", "access".
	What string
	// classify names the class of a call from its registers.
	classify func(args [6]uint64) string
	// canonical turns a class as a user wrote it into its one spelling.
	canonical func(text string) (string, error)
	// match is the set of calls in a canonical class: any one of the
	// alternatives, each all of its comparisons.
	match func(class string) [][]argCmp
	// known lists class names for messages.
	known []string
	// common is the class nearly every call of the syscall has (a fork
	// is clone(none), a library load mmap(W^X)), or "". Under the audit
	// backend the filter logs it instead of sending it to the listener,
	// and the log then names it: a held call returns EINTR when a signal
	// arrives first, which a native fork never does, and notifying every
	// mmap would cost far more than logging it.
	common string
}

// the masks of 32-bit arguments (int, unsigned int): the upper half of the
// register is ignored by the kernel, so it is by the comparison too, and an
// agent cannot step around a class by setting it.
const mask32 = 0xffffffff

// keyPattern splits "socket(AF_UNIX)" into name and class.
var keyPattern = regexp.MustCompile(`^([A-Za-z0-9_]+)\((.*)\)$`)

// SplitKey splits a baseline key into its syscall name and class:
// "socket(AF_UNIX)" is ("socket", "AF_UNIX"), "read" is ("read", "").
func SplitKey(key string) (name, class string) {
	if m := keyPattern.FindStringSubmatch(key); m != nil {
		return m[1], m[2]
	}
	return key, ""
}

// ClassKey joins a syscall name and a class ("" for none) into a key.
func ClassKey(name, class string) string {
	if class == "" {
		return name
	}
	return name + "(" + class + ")"
}

// SyscallOf is the syscall name of a key.
func SyscallOf(key string) string {
	name, _ := SplitKey(key)
	return name
}

// HasClasses reports whether name splits into argument classes on arch.
func HasClasses(arch scmp.Arch, name string) bool { return splitFor(arch, name) != nil }

// ClassedSyscalls lists the syscalls of arch that split into classes.
func ClassedSyscalls(arch scmp.Arch) []string {
	var out []string
	for name := range argSyscalls {
		if HasClasses(arch, name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Classify returns the key of a call of name on arch with these register
// arguments: "socket(AF_INET)", or name itself for a syscall without
// classes.
func Classify(arch scmp.Arch, name string, args [6]uint64) string {
	s := splitFor(arch, name)
	if s == nil {
		return name
	}
	return ClassKey(name, s.classify(args))
}

// CanonicalKey checks a key as written in a baseline and returns its one
// spelling ("socket(PF_INET)" is "socket(AF_INET)"). The syscall name is
// not checked here.
func CanonicalKey(arch scmp.Arch, key string) (string, error) {
	name, class := SplitKey(key)
	if class == "" {
		if strings.ContainsAny(key, "()") {
			return "", fmt.Errorf("%q: write a class as name(class), e.g. socket(AF_UNIX)", key)
		}
		return key, nil
	}
	s := splitFor(arch, name)
	if s == nil {
		if _, ok := argSyscalls[name]; ok {
			return "", fmt.Errorf("%s has no argument classes on %s (its arguments are not in registers there): list it as %q", name, arch, name)
		}
		return "", fmt.Errorf("%s has no argument classes (those are: %s): list it as %q", name, strings.Join(ClassedSyscalls(arch), ", "), name)
	}
	c, err := s.canonical(strings.TrimSpace(class))
	if err != nil {
		return "", fmt.Errorf("%s(%s): %w", name, class, err)
	}
	return ClassKey(name, c), nil
}

// classMatch returns the comparisons that select a key's class; nil for a
// key without one.
func classMatch(arch scmp.Arch, key string) [][]argCmp {
	name, class := SplitKey(key)
	if class == "" {
		return nil
	}
	if s := splitFor(arch, name); s != nil {
		return s.match(class)
	}
	return nil
}

// commonClass is the class of name on arch that an audit run logs rather
// than notifies (see argSplit.common), "" for none.
func commonClass(arch scmp.Arch, name string) string {
	if s := splitFor(arch, name); s != nil {
		return s.common
	}
	return ""
}

// ClassWhat names what a classed syscall's classes are about ("address
// family"), "" for other syscalls.
func ClassWhat(arch scmp.Arch, name string) string {
	if s := splitFor(arch, name); s != nil {
		return s.What
	}
	return ""
}

// argSyscalls maps each classed syscall to its split, by the register
// index of the argument on the usual arches; splitFor adjusts per arch.
var argSyscalls = map[string]func(arch scmp.Arch) *argSplit{
	"socket":        func(scmp.Arch) *argSplit { return familySplit },
	"socketpair":    func(scmp.Arch) *argSplit { return familySplit },
	"open":          func(scmp.Arch) *argSplit { return openSplit(1) },
	"openat":        func(scmp.Arch) *argSplit { return openSplit(2) },
	"clone":         cloneSplit,
	"unshare":       func(scmp.Arch) *argSplit { return unshareSplit },
	"setns":         func(scmp.Arch) *argSplit { return setnsSplit },
	"prctl":         func(scmp.Arch) *argSplit { return prctlSplit },
	"ioctl":         ioctlSplit,
	"mmap":          mmapSplit,
	"mmap2":         func(scmp.Arch) *argSplit { return protSplit },
	"mprotect":      func(scmp.Arch) *argSplit { return protSplit },
	"pkey_mprotect": func(scmp.Arch) *argSplit { return protSplit },
	"personality":   func(scmp.Arch) *argSplit { return personaSplit },
	"ptrace":        func(scmp.Arch) *argSplit { return ptraceSplit },
}

func splitFor(arch scmp.Arch, name string) *argSplit {
	f, ok := argSyscalls[name]
	if !ok {
		return nil
	}
	if _, known := scmp.Number(arch, name); !known {
		return nil
	}
	return f(arch)
}

// --- socket and socketpair: address family, and SOCK_RAW ---

const sockRaw = 3 // SOCK_RAW, the same on every arch sysgate names

var familySplit = &argSplit{
	What: "address family",
	classify: func(args [6]uint64) string {
		c := familyName(uint32(args[0]))
		if args[1]&0xf == sockRaw {
			c += ", SOCK_RAW"
		}
		return c
	},
	canonical: func(text string) (string, error) {
		fam, rest, _ := strings.Cut(text, ",")
		v, ok := parseFamily(fam)
		if !ok {
			return "", fmt.Errorf("unknown address family %q%s", strings.TrimSpace(fam), families.hint(fam))
		}
		c := familyName(uint32(v))
		switch strings.TrimSpace(rest) {
		case "":
		case "SOCK_RAW":
			c += ", SOCK_RAW"
		default:
			return "", fmt.Errorf("%q: the only socket type with a class of its own is SOCK_RAW", strings.TrimSpace(rest))
		}
		return c, nil
	},
	match: func(class string) [][]argCmp {
		fam, raw := strings.CutSuffix(class, ", SOCK_RAW")
		v, _ := parseFamily(fam)
		family := argCmp{0, mask32, v}
		if raw {
			return [][]argCmp{{family, {1, 0xf, sockRaw}}}
		}
		// type & 0xf != SOCK_RAW (3 = 0b0011): bit 2 or 3 set, or bit 0
		// or 1 clear.
		return [][]argCmp{
			{family, {1, 0x4, 0x4}}, {family, {1, 0x8, 0x8}},
			{family, {1, 0x1, 0}}, {family, {1, 0x2, 0}},
		}
	},
	known: families.sorted,
}

var families = newNameTable(map[string]uint64{
	"AF_UNSPEC": 0, "AF_UNIX": 1, "AF_INET": 2, "AF_AX25": 3, "AF_IPX": 4, "AF_APPLETALK": 5,
	"AF_NETROM": 6, "AF_BRIDGE": 7, "AF_ATMPVC": 8, "AF_X25": 9, "AF_INET6": 10, "AF_ROSE": 11,
	"AF_DECnet": 12, "AF_NETBEUI": 13, "AF_SECURITY": 14, "AF_KEY": 15, "AF_NETLINK": 16,
	"AF_PACKET": 17, "AF_ASH": 18, "AF_ECONET": 19, "AF_ATMSVC": 20, "AF_RDS": 21, "AF_SNA": 22,
	"AF_IRDA": 23, "AF_PPPOX": 24, "AF_WANPIPE": 25, "AF_LLC": 26, "AF_IB": 27, "AF_MPLS": 28,
	"AF_CAN": 29, "AF_TIPC": 30, "AF_BLUETOOTH": 31, "AF_IUCV": 32, "AF_RXRPC": 33, "AF_ISDN": 34,
	"AF_PHONET": 35, "AF_IEEE802154": 36, "AF_CAIF": 37, "AF_ALG": 38, "AF_NFC": 39, "AF_VSOCK": 40,
	"AF_KCM": 41, "AF_QIPCRTR": 42, "AF_SMC": 43, "AF_XDP": 44, "AF_MCTP": 45,
})

// familyAliases are other spellings of a family.
var familyAliases = map[string]string{"AF_LOCAL": "AF_UNIX", "AF_FILE": "AF_UNIX", "AF_ROUTE": "AF_NETLINK"}

func familyName(v uint32) string {
	if n, ok := families.byValue[uint64(v)]; ok {
		return n
	}
	return strconv.FormatUint(uint64(v), 10)
}

// parseFamily reads AF_INET, PF_INET, an alias or a number.
func parseFamily(text string) (uint64, bool) {
	text = strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(text, "PF_"); ok {
		text = "AF_" + rest
	}
	if alias, ok := familyAliases[text]; ok {
		text = alias
	}
	if v, ok := families.byName[text]; ok {
		return v, true
	}
	v, err := strconv.ParseUint(text, 10, 32)
	return v, err == nil
}

// --- open and openat: read, write, create ---

const (
	oAccmode = 0x3
	oCreat   = 0x40       // 0100
	oTrunc   = 0x200      // 01000
	oTmpfile = 0x00400000 // __O_TMPFILE, 020000000
	// These values are asm-generic's, which every arch sysgate names uses
	// for them.
	oCreating = oCreat | oTrunc | oTmpfile
)

var openClasses = []string{"read", "write", "create"}

func openSplit(arg uint) *argSplit {
	return &argSplit{
		What: "access",
		classify: func(args [6]uint64) string {
			flags := args[arg] & mask32
			switch {
			case flags&oCreating != 0:
				return "create"
			case flags&oAccmode == 0:
				return "read"
			}
			return "write"
		},
		canonical: func(text string) (string, error) {
			for _, c := range openClasses {
				if text == c {
					return c, nil
				}
			}
			return "", fmt.Errorf("unknown access %q: read (O_RDONLY), write (O_WRONLY or O_RDWR) or create (O_CREAT, O_TRUNC or O_TMPFILE)", text)
		},
		match: func(class string) [][]argCmp {
			const m = oAccmode | oCreating
			switch class {
			case "read":
				return [][]argCmp{{{arg, m, 0}}}
			case "write":
				return [][]argCmp{{{arg, m, 1}}, {{arg, m, 2}}, {{arg, m, 3}}}
			}
			return [][]argCmp{{{arg, oCreat, oCreat}}, {{arg, oTrunc, oTrunc}}, {{arg, oTmpfile, oTmpfile}}}
		},
		known:  openClasses,
		common: "read",
	}
}

// --- clone, unshare, setns: namespaces ---

const cloneNewTime = 0x80

var namespaceFlags = []struct {
	bit  uint64
	name string
}{
	{cloneNewTime, "CLONE_NEWTIME"}, {0x20000, "CLONE_NEWNS"}, {0x02000000, "CLONE_NEWCGROUP"},
	{0x04000000, "CLONE_NEWUTS"}, {0x08000000, "CLONE_NEWIPC"}, {0x10000000, "CLONE_NEWUSER"},
	{0x20000000, "CLONE_NEWPID"}, {0x40000000, "CLONE_NEWNET"},
}

// namespaceSplit classes a flags argument by the namespace flags in it,
// exactly: "CLONE_NEWUSER|CLONE_NEWNET", or zero when it has none.
func namespaceSplit(arg uint, mask uint64, zero, what string) *argSplit {
	var known []string
	for _, f := range namespaceFlags {
		if f.bit&mask != 0 {
			known = append(known, f.name)
		}
	}
	render := func(v uint64) string {
		var names []string
		for _, f := range namespaceFlags {
			if v&f.bit != 0 {
				names = append(names, f.name)
			}
		}
		if len(names) == 0 {
			return zero
		}
		return strings.Join(names, "|")
	}
	parse := func(text string) (uint64, error) {
		if text == zero {
			return 0, nil
		}
		var v uint64
		for _, part := range strings.Split(text, "|") {
			part = strings.TrimSpace(part)
			found := false
			for _, f := range namespaceFlags {
				if f.name == part && f.bit&mask != 0 {
					v |= f.bit
					found = true
				}
			}
			if !found {
				if part == "CLONE_NEWTIME" {
					return 0, fmt.Errorf("CLONE_NEWTIME is not a clone flag (its bit is the exit signal); unshare and setns take it")
				}
				return 0, fmt.Errorf("unknown namespace flag %q (known: %s, or %s for none)", part, strings.Join(known, ", "), zero)
			}
		}
		return v, nil
	}
	s := exactSplit(what, arg, mask, render, parse, append([]string{zero}, known...))
	s.common = zero
	return s
}

// exactSplit classes a call by the exact value of one masked argument,
// written and read by render and parse.
func exactSplit(what string, arg uint, mask uint64, render func(uint64) string, parse func(string) (uint64, error), known []string) *argSplit {
	return &argSplit{
		What:     what,
		classify: func(args [6]uint64) string { return render(args[arg] & mask) },
		canonical: func(text string) (string, error) {
			v, err := parse(text)
			if err != nil {
				return "", err
			}
			return render(v), nil
		},
		match: func(class string) [][]argCmp {
			v, _ := parse(class)
			return [][]argCmp{{{arg, mask, v}}}
		},
		known: known,
	}
}

// clone's flags are arg 0 but on s390x (CLONE_BACKWARDS2), and the kernel
// reads their lower 32 bits; the exit signal takes the low byte, where
// unshare has CLONE_NEWTIME.
func cloneSplit(arch scmp.Arch) *argSplit {
	arg := uint(0)
	if arch == scmp.S390X {
		arg = 1
	}
	return namespaceSplit(arg, allNamespaces&^cloneNewTime, "none", "namespace set")
}

const allNamespaces = 0x7e020080

var (
	unshareSplit = namespaceSplit(0, allNamespaces, "none", "namespace set")
	// setns with nstype 0 joins whatever namespace the fd is.
	setnsSplit = namespaceSplit(1, allNamespaces, "any", "namespace set")
)

// --- prctl, ioctl, ptrace: the operation, by name or number ---

// valueSplit classes a call by one argument's exact value, named when the
// name is known, else the number (hex when hex is set).
func valueSplit(what string, arg uint, mask uint64, names *nameTable, hex bool) *argSplit {
	render := func(v uint64) string {
		if n, ok := names.byValue[v]; ok {
			return n
		}
		if hex {
			return "0x" + strconv.FormatUint(v, 16)
		}
		return strconv.FormatUint(v, 10)
	}
	parse := func(text string) (uint64, error) {
		if v, ok := names.byName[text]; ok {
			return v, nil
		}
		v, err := strconv.ParseUint(text, 0, 64)
		if err != nil || v&^mask != 0 {
			return 0, fmt.Errorf("unknown %s %q%s; a number works too", what, text, names.hint(text))
		}
		return v, nil
	}
	return exactSplit(what, arg, mask, render, parse, names.sorted)
}

var (
	prctlSplit = valueSplit("prctl option", 0, mask32, prctlNames, false)
	// ptrace's request is a long: every bit counts.
	ptraceSplit = valueSplit("ptrace request", 0, ^uint64(0), ptraceNames, false)
	// ioctl's request is an unsigned int.
	ioctlGeneric = valueSplit("ioctl request", 1, mask32, ioctlNames, true)
	ioctlNumbers = valueSplit("ioctl request", 1, mask32, newNameTable(nil), true)
)

// ioctlSplit: the named requests are the asm-generic numbers; ppc64le
// numbers its terminal ioctls differently and takes numbers only.
func ioctlSplit(arch scmp.Arch) *argSplit {
	if arch == scmp.PPC64LE {
		return ioctlNumbers
	}
	return ioctlGeneric
}

var prctlNames = newNameTable(map[string]uint64{
	"PR_SET_PDEATHSIG": 1, "PR_GET_PDEATHSIG": 2, "PR_GET_DUMPABLE": 3, "PR_SET_DUMPABLE": 4,
	"PR_GET_UNALIGN": 5, "PR_SET_UNALIGN": 6, "PR_GET_KEEPCAPS": 7, "PR_SET_KEEPCAPS": 8,
	"PR_GET_FPEMU": 9, "PR_SET_FPEMU": 10, "PR_GET_FPEXC": 11, "PR_SET_FPEXC": 12,
	"PR_GET_TIMING": 13, "PR_SET_TIMING": 14, "PR_SET_NAME": 15, "PR_GET_NAME": 16,
	"PR_GET_ENDIAN": 19, "PR_SET_ENDIAN": 20, "PR_GET_SECCOMP": 21, "PR_SET_SECCOMP": 22,
	"PR_CAPBSET_READ": 23, "PR_CAPBSET_DROP": 24, "PR_GET_TSC": 25, "PR_SET_TSC": 26,
	"PR_GET_SECUREBITS": 27, "PR_SET_SECUREBITS": 28, "PR_SET_TIMERSLACK": 29, "PR_GET_TIMERSLACK": 30,
	"PR_TASK_PERF_EVENTS_DISABLE": 31, "PR_TASK_PERF_EVENTS_ENABLE": 32, "PR_MCE_KILL": 33,
	"PR_MCE_KILL_GET": 34, "PR_SET_MM": 35, "PR_SET_CHILD_SUBREAPER": 36, "PR_GET_CHILD_SUBREAPER": 37,
	"PR_SET_NO_NEW_PRIVS": 38, "PR_GET_NO_NEW_PRIVS": 39, "PR_GET_TID_ADDRESS": 40,
	"PR_SET_THP_DISABLE": 41, "PR_GET_THP_DISABLE": 42, "PR_SET_FP_MODE": 45, "PR_GET_FP_MODE": 46,
	"PR_CAP_AMBIENT": 47, "PR_SVE_SET_VL": 50, "PR_SVE_GET_VL": 51, "PR_GET_SPECULATION_CTRL": 52,
	"PR_SET_SPECULATION_CTRL": 53, "PR_PAC_RESET_KEYS": 54, "PR_SET_TAGGED_ADDR_CTRL": 55,
	"PR_GET_TAGGED_ADDR_CTRL": 56, "PR_SET_IO_FLUSHER": 57, "PR_GET_IO_FLUSHER": 58,
	"PR_SET_SYSCALL_USER_DISPATCH": 59, "PR_PAC_SET_ENABLED_KEYS": 60, "PR_PAC_GET_ENABLED_KEYS": 61,
	"PR_SCHED_CORE": 62, "PR_SME_SET_VL": 63, "PR_SME_GET_VL": 64, "PR_SET_MDWE": 65, "PR_GET_MDWE": 66,
	"PR_SET_MEMORY_MERGE": 67, "PR_GET_MEMORY_MERGE": 68, "PR_GET_SHADOW_STACK_STATUS": 74,
	"PR_SET_SHADOW_STACK_STATUS": 75, "PR_LOCK_SHADOW_STACK_STATUS": 76,
	"PR_SET_VMA": 0x53564d41, "PR_SET_PTRACER": 0x59616d61,
})

var ptraceNames = newNameTable(map[string]uint64{
	"PTRACE_TRACEME": 0, "PTRACE_PEEKTEXT": 1, "PTRACE_PEEKDATA": 2, "PTRACE_PEEKUSR": 3,
	"PTRACE_POKETEXT": 4, "PTRACE_POKEDATA": 5, "PTRACE_POKEUSR": 6, "PTRACE_CONT": 7,
	"PTRACE_KILL": 8, "PTRACE_SINGLESTEP": 9, "PTRACE_GETREGS": 12, "PTRACE_SETREGS": 13,
	"PTRACE_GETFPREGS": 14, "PTRACE_SETFPREGS": 15, "PTRACE_ATTACH": 16, "PTRACE_DETACH": 17,
	"PTRACE_SYSCALL": 24, "PTRACE_SETOPTIONS": 0x4200, "PTRACE_GETEVENTMSG": 0x4201,
	"PTRACE_GETSIGINFO": 0x4202, "PTRACE_SETSIGINFO": 0x4203, "PTRACE_GETREGSET": 0x4204,
	"PTRACE_SETREGSET": 0x4205, "PTRACE_SEIZE": 0x4206, "PTRACE_INTERRUPT": 0x4207,
	"PTRACE_LISTEN": 0x4208, "PTRACE_PEEKSIGINFO": 0x4209, "PTRACE_GETSIGMASK": 0x420a,
	"PTRACE_SETSIGMASK": 0x420b, "PTRACE_SECCOMP_GET_FILTER": 0x420c,
	"PTRACE_SECCOMP_GET_METADATA": 0x420d, "PTRACE_GET_SYSCALL_INFO": 0x420e,
})

// ioctlNames are asm-generic's numbers (x86, arm, arm64, riscv, s390).
var ioctlNames = newNameTable(map[string]uint64{
	"TCGETS": 0x5401, "TCSETS": 0x5402, "TCSETSW": 0x5403, "TCSETSF": 0x5404, "TCGETA": 0x5405,
	"TCSETA": 0x5406, "TCSETAW": 0x5407, "TCSETAF": 0x5408, "TCSBRK": 0x5409, "TCXONC": 0x540a,
	"TCFLSH": 0x540b, "TIOCEXCL": 0x540c, "TIOCNXCL": 0x540d, "TIOCSCTTY": 0x540e,
	"TIOCGPGRP": 0x540f, "TIOCSPGRP": 0x5410, "TIOCOUTQ": 0x5411, "TIOCSTI": 0x5412,
	"TIOCGWINSZ": 0x5413, "TIOCSWINSZ": 0x5414, "TIOCMGET": 0x5415, "TIOCMBIS": 0x5416,
	"TIOCMBIC": 0x5417, "TIOCMSET": 0x5418, "TIOCGSOFTCAR": 0x5419, "TIOCSSOFTCAR": 0x541a,
	"FIONREAD": 0x541b, "TIOCLINUX": 0x541c, "TIOCCONS": 0x541d, "TIOCGSERIAL": 0x541e,
	"TIOCSSERIAL": 0x541f, "TIOCPKT": 0x5420, "FIONBIO": 0x5421, "TIOCNOTTY": 0x5422,
	"TIOCSETD": 0x5423, "TIOCGETD": 0x5424, "TCSBRKP": 0x5425, "TIOCSBRK": 0x5427,
	"TIOCCBRK": 0x5428, "TIOCGSID": 0x5429, "TCGETS2": 0x802c542a, "TCSETS2": 0x402c542b,
	"TIOCGPTN": 0x80045430, "TIOCSPTLCK": 0x40045431, "TIOCGDEV": 0x80045432, "TIOCSIG": 0x40045436,
	"TIOCVHANGUP": 0x5437, "TIOCGPKT": 0x80045438, "TIOCGPTLCK": 0x80045439, "TIOCGEXCL": 0x80045440,
	"TIOCGPTPEER": 0x5441, "FIONCLEX": 0x5450, "FIOCLEX": 0x5451, "FIOASYNC": 0x5452,
	"TIOCSERCONFIG": 0x5453, "TIOCSERGWILD": 0x5454, "TIOCSERSWILD": 0x5455, "TIOCGLCKTRMIOS": 0x5456,
	"TIOCSLCKTRMIOS": 0x5457, "TIOCSERGSTRUCT": 0x5458, "TIOCSERGETLSR": 0x5459,
	"TIOCMIWAIT": 0x545c, "TIOCGICOUNT": 0x545d, "FIOQSIZE": 0x5460,
})

// --- mmap, mprotect, pkey_mprotect: writable and executable at once ---

const (
	protWrite = 0x2
	protExec  = 0x4
	protWX    = protWrite | protExec
)

var protClasses = []string{"W^X", "W+X"}

var protSplit = &argSplit{
	What: "protection",
	classify: func(args [6]uint64) string {
		if args[2]&protWX == protWX {
			return "W+X"
		}
		return "W^X"
	},
	canonical: func(text string) (string, error) {
		switch strings.ReplaceAll(text, " ", "") {
		case "W^X":
			return "W^X", nil
		case "W+X", "PROT_WRITE|PROT_EXEC", "PROT_EXEC|PROT_WRITE":
			return "W+X", nil
		}
		return "", fmt.Errorf("unknown protection %q: W^X (not writable and executable at once) or W+X (PROT_WRITE|PROT_EXEC)", text)
	},
	match: func(class string) [][]argCmp {
		if class == "W+X" {
			return [][]argCmp{{{2, protWX, protWX}}}
		}
		return [][]argCmp{{{2, protWX, 0}}, {{2, protWX, protWrite}}, {{2, protWX, protExec}}}
	},
	known:  protClasses,
	common: "W^X",
}

// mmapSplit: i386's and s390x's mmap take a pointer to their arguments
// (old_mmap); their mmap2 (i386) carries them in registers.
func mmapSplit(arch scmp.Arch) *argSplit {
	if arch == scmp.I386 || arch == scmp.S390X {
		return nil
	}
	return protSplit
}

// --- personality: the persona and its flags ---

const personaQuery = 0xffffffff

var personaTypes = newNameTable(map[string]uint64{"PER_LINUX": 0, "PER_LINUX32": 8})

var personaFlags = []struct {
	bit  uint64
	name string
}{
	{0x0020000, "UNAME26"}, {0x0040000, "ADDR_NO_RANDOMIZE"}, {0x0080000, "FDPIC_FUNCPTRS"},
	{0x0100000, "MMAP_PAGE_ZERO"}, {0x0200000, "ADDR_COMPAT_LAYOUT"}, {0x0400000, "READ_IMPLIES_EXEC"},
	{0x0800000, "ADDR_LIMIT_32BIT"}, {0x1000000, "SHORT_INODE"}, {0x2000000, "WHOLE_SECONDS"},
	{0x4000000, "STICKY_TIMEOUTS"}, {0x8000000, "ADDR_LIMIT_3GB"},
}

func renderPersona(v uint64) string {
	if v == personaQuery {
		return "query"
	}
	var parts []string
	typ := v & 0xff
	if n, ok := personaTypes.byValue[typ]; ok {
		parts = append(parts, n)
	} else {
		parts = append(parts, "0x"+strconv.FormatUint(typ, 16))
	}
	rest := v &^ 0xff
	for _, f := range personaFlags {
		if rest&f.bit != 0 {
			parts = append(parts, f.name)
			rest &^= f.bit
		}
	}
	if rest != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(rest, 16))
	}
	return strings.Join(parts, "|")
}

func parsePersona(text string) (uint64, error) {
	if text == "query" {
		return personaQuery, nil
	}
	var v uint64
	for _, part := range strings.Split(text, "|") {
		part = strings.TrimSpace(part)
		if t, ok := personaTypes.byName[part]; ok {
			v |= t
			continue
		}
		found := false
		for _, f := range personaFlags {
			if f.name == part {
				v |= f.bit
				found = true
			}
		}
		if found {
			continue
		}
		n, err := strconv.ParseUint(part, 0, 32)
		if err != nil {
			return 0, fmt.Errorf("unknown persona %q (PER_LINUX, PER_LINUX32, query, or flags such as ADDR_NO_RANDOMIZE joined with |)", part)
		}
		v |= n
	}
	return v, nil
}

var personaSplit = exactSplit("persona", 0, mask32, renderPersona, parsePersona, []string{"PER_LINUX", "PER_LINUX32", "query"})

// --- helpers ---

// nameTable is a set of named values, looked up both ways; a value with
// several names renders as the first in sorted order.
type nameTable struct {
	byName  map[string]uint64
	byValue map[uint64]string
	sorted  []string
}

func newNameTable(names map[string]uint64) *nameTable {
	t := &nameTable{byName: names, byValue: map[uint64]string{}}
	for n := range names {
		t.sorted = append(t.sorted, n)
	}
	sort.Strings(t.sorted)
	for _, n := range t.sorted {
		if _, have := t.byValue[names[n]]; !have {
			t.byValue[names[n]] = n
		}
	}
	return t
}

// hint is ", did you mean X?" for the known name closest to text, or "".
func (t *nameTable) hint(text string) string {
	if best := scmp.ClosestOf(strings.ToUpper(strings.TrimSpace(text)), t.sorted); best != "" {
		return fmt.Sprintf(", did you mean %s?", best)
	}
	return ""
}
