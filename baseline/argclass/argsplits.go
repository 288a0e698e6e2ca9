package argclass

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

// How each classed syscall splits (see argSyscalls).

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
	match: func(class string) [][]ArgCmp {
		fam, raw := strings.CutSuffix(class, ", SOCK_RAW")
		v, _ := parseFamily(fam)
		family := ArgCmp{0, mask32, v}
		if raw {
			return [][]ArgCmp{{family, {1, 0xf, sockRaw}}}
		}
		// type & 0xf != SOCK_RAW (3 = 0b0011): bit 2 or 3 set, or bit 0
		// or 1 clear.
		return [][]ArgCmp{
			{family, {1, 0x4, 0x4}}, {family, {1, 0x8, 0x8}},
			{family, {1, 0x1, 0}}, {family, {1, 0x2, 0}},
		}
	},
	known: families.sorted,
}

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
		match: func(class string) [][]ArgCmp {
			const m = oAccmode | oCreating
			switch class {
			case "read":
				return [][]ArgCmp{{{arg, m, 0}}}
			case "write":
				return [][]ArgCmp{{{arg, m, 1}}, {{arg, m, 2}}, {{arg, m, 3}}}
			}
			return [][]ArgCmp{{{arg, oCreat, oCreat}}, {{arg, oTrunc, oTrunc}}, {{arg, oTmpfile, oTmpfile}}}
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
		match: func(class string) [][]ArgCmp {
			v, _ := parse(class)
			return [][]ArgCmp{{{arg, mask, v}}}
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

// signalSplit classes a thread-directed kill by its signal. SIGURG is
// the common class: Go's runtime sends it to its own threads for every
// asynchronous preemption (tgkill(getpid(), tid, SIGURG)), so the audit
// backend logs it rather than hold each one at the listener.
func signalSplit(arg uint) *argSplit {
	s := valueSplit("signal", arg, mask32, signals, false)
	s.common = "SIGURG"
	return s
}

var (
	tgkillSplit = signalSplit(2)
	tkillSplit  = signalSplit(1)
)

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
	match: func(class string) [][]ArgCmp {
		if class == "W+X" {
			return [][]ArgCmp{{{2, protWX, protWX}}}
		}
		return [][]ArgCmp{{{2, protWX, 0}}, {{2, protWX, protWrite}}, {{2, protWX, protExec}}}
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

// --- mknod and mknodat: the kind of node, by the S_IFMT bits of mode ---

// The S_IFMT bits of a mode name the kind of node (the same on every
// arch sysgate names). A type of 0 makes a regular file, as S_IFREG does;
// the kernel refuses any other type (EINVAL, or EPERM for S_IFDIR), which
// classifies as its octal number.
const sIFMT, sIFREG = unix.S_IFMT, unix.S_IFREG

var nodeKinds = map[string]uint64{"fifo": unix.S_IFIFO, "socket": unix.S_IFSOCK, "regular": sIFREG, "char": unix.S_IFCHR, "block": unix.S_IFBLK}

var nodeClasses = []string{"fifo", "socket", "regular", "char", "block"}

// mknodSplit classes mknod (mode is arg 1) and mknodat (arg 2) by the kind
// of node, so that a baseline line for a FIFO does not allow a block
// device. The kernel reads mode as a umode_t: its low 16 bits.
func mknodSplit(arg uint) *argSplit {
	render := func(v uint64) string {
		if v == 0 {
			return "regular"
		}
		for _, c := range nodeClasses {
			if nodeKinds[c] == v {
				return c
			}
		}
		return "0" + strconv.FormatUint(v, 8)
	}
	parse := func(text string) (uint64, error) {
		if v, ok := nodeKinds[text]; ok {
			return v, nil
		}
		v, err := strconv.ParseUint(text, 8, 32)
		if err != nil || v&^sIFMT != 0 {
			return 0, fmt.Errorf("unknown node kind %q: fifo, socket, regular, char or block (or the octal S_IFMT bits of mode)", text)
		}
		return v, nil
	}
	s := exactSplit("node kind", arg, sIFMT, render, parse, nodeClasses)
	// A type of 0 is a regular file too.
	s.match = func(class string) [][]ArgCmp {
		v, _ := parse(class)
		if v == sIFREG {
			return [][]ArgCmp{{{arg, sIFMT, sIFREG}}, {{arg, sIFMT, 0}}}
		}
		return [][]ArgCmp{{{arg, sIFMT, v}}}
	}
	return s
}
