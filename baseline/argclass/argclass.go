// Package argclass defines argument classes. An argument class splits one
// syscall by what its register arguments say it does: socket by address
// family, openat by read, write or create, clone by the namespaces it
// creates, mknodat by the kind of node, tgkill by the signal it sends. A baseline line names one class,
// "socket(AF_UNIX)"; a line without parentheses, "socket", is argument
// blind and allows the syscall with any arguments.
//
// The filter compares register values only (masked, as libseccomp's
// SCMP_CMP_MASKED_EQ), never the memory they point to: paths, clone3's and
// openat2's structs and socketcall's argument array are out of its reach.
// Every class below is therefore defined by masked comparisons alone, and
// Classify, which names the class of a call from its registers, must agree
// with the comparisons that ClassMatch returns: the tests of package
// baseline/compile check both against each other through libseccomp's
// compiled filter.
package argclass

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/internal/scmp"
)

// ArgCmp is one masked comparison: (arg[Arg] & Mask) == Value.
type ArgCmp struct {
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
	match func(class string) [][]ArgCmp
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

// ClassMatch returns the comparisons that select a key's class; nil for a
// key without one.
func ClassMatch(arch scmp.Arch, key string) [][]ArgCmp {
	name, class := SplitKey(key)
	if class == "" {
		return nil
	}
	if s := splitFor(arch, name); s != nil {
		return s.match(class)
	}
	return nil
}

// CommonClass is the class of name on arch that an audit run logs rather
// than notifies (see argSplit.common), "" for none.
func CommonClass(arch scmp.Arch, name string) string {
	if s := splitFor(arch, name); s != nil {
		return s.common
	}
	return ""
}

// KnownClasses lists the classes of name on arch as messages name them,
// nil for a syscall without classes.
func KnownClasses(arch scmp.Arch, name string) []string {
	if s := splitFor(arch, name); s != nil {
		return s.known
	}
	return nil
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
	"mknod":         func(scmp.Arch) *argSplit { return mknodSplit(1) },
	"mknodat":       func(scmp.Arch) *argSplit { return mknodSplit(2) },
	"tgkill":        func(scmp.Arch) *argSplit { return tgkillSplit },
	"tkill":         func(scmp.Arch) *argSplit { return tkillSplit },
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
