package argclass

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestCanonicalKeys(t *testing.T) {
	for in, want := range map[string]string{
		"socket(AF_UNIX)":                          "socket(AF_UNIX)",
		"socket(PF_INET)":                          "socket(AF_INET)",
		"socket(AF_LOCAL)":                         "socket(AF_UNIX)",
		"socket(17)":                               "socket(AF_PACKET)",
		"socket(AF_INET,SOCK_RAW)":                 "socket(AF_INET, SOCK_RAW)",
		"socketpair(AF_UNIX)":                      "socketpair(AF_UNIX)",
		"openat(read)":                             "openat(read)",
		"clone(CLONE_NEWNET|CLONE_NEWUSER)":        "clone(CLONE_NEWUSER|CLONE_NEWNET)",
		"unshare(CLONE_NEWTIME)":                   "unshare(CLONE_NEWTIME)",
		"setns(any)":                               "setns(any)",
		"prctl(PR_SET_NAME)":                       "prctl(PR_SET_NAME)",
		"prctl(15)":                                "prctl(PR_SET_NAME)",
		"prctl(999)":                               "prctl(999)",
		"ioctl(0x5412)":                            "ioctl(TIOCSTI)",
		"ioctl(21523)":                             "ioctl(TIOCGWINSZ)",
		"ioctl(0x1234)":                            "ioctl(0x1234)",
		"mmap(PROT_WRITE|PROT_EXEC)":               "mmap(W+X)",
		"mprotect(W^X)":                            "mprotect(W^X)",
		"personality(PER_LINUX|ADDR_NO_RANDOMIZE)": "personality(PER_LINUX|ADDR_NO_RANDOMIZE)",
		"personality(query)":                       "personality(query)",
		"ptrace(PTRACE_ATTACH)":                    "ptrace(PTRACE_ATTACH)",
		"read":                                     "read",
	} {
		got, err := CanonicalKey(scmp.X86_64, in)
		if err != nil || got != want {
			t.Errorf("CanonicalKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"socket(AF_INTE)":              "did you mean AF_INET?",
		"socket(AF_INET, SOCK_STREAM)": "only socket type",
		"openat(readonly)":             "unknown access",
		"clone(CLONE_NEWTIME)":         "not a clone flag",
		"clone(CLONE_FILES)":           "unknown namespace flag",
		"read(fd)":                     "read has no argument classes",
		"mmap(RWX)":                    "unknown protection",
		"prctl(PR_SET_NAM)":            "did you mean PR_SET_NAME?",
		"socket(AF_UNIX":               "write a class as name(class)",
	} {
		if _, err := CanonicalKey(scmp.X86_64, in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("CanonicalKey(%q) error %v, want it to say %q", in, err, msg)
		}
	}
	// i386's mmap takes a pointer to its arguments: no classes there.
	if _, err := CanonicalKey(scmp.I386, "mmap(W^X)"); err == nil || !strings.Contains(err.Error(), "not in registers") {
		t.Errorf("i386 mmap class accepted: %v", err)
	}
	if _, err := CanonicalKey(scmp.I386, "mmap2(W^X)"); err != nil {
		t.Errorf("i386 mmap2: %v", err)
	}
}

func TestClassifyNamesWhatTheKernelSees(t *testing.T) {
	for _, c := range []struct {
		name string
		args [6]uint64
		want string
	}{
		{"socket", [6]uint64{2, 1}, "socket(AF_INET)"},
		{"socket", [6]uint64{2, 3 | 0x80000}, "socket(AF_INET, SOCK_RAW)"},
		// The kernel reads an int: upper bits are not a way around.
		{"socket", [6]uint64{1<<32 | 2, 1}, "socket(AF_INET)"},
		{"socket", [6]uint64{17, 2}, "socket(AF_PACKET)"},
		{"openat", [6]uint64{0, 0, 0x80000}, "openat(read)"},
		{"openat", [6]uint64{0, 0, 0x241}, "openat(create)"},
		{"openat", [6]uint64{0, 0, 2}, "openat(write)"},
		{"openat", [6]uint64{0, 0, 0x200}, "openat(create)"}, // O_RDONLY|O_TRUNC truncates
		{"open", [6]uint64{0, 0x410000 | 2}, "open(create)"}, // O_TMPFILE
		{"clone", [6]uint64{0x3d0f00}, "clone(none)"},        // a pthread
		{"clone", [6]uint64{0x50000000 | 17}, "clone(CLONE_NEWUSER|CLONE_NEWNET)"},
		{"unshare", [6]uint64{0x400}, "unshare(none)"}, // CLONE_FILES
		{"unshare", [6]uint64{0x50000000}, "unshare(CLONE_NEWUSER|CLONE_NEWNET)"},
		{"setns", [6]uint64{3, 0}, "setns(any)"},
		{"ioctl", [6]uint64{0, 0x5412}, "ioctl(TIOCSTI)"},
		{"mmap", [6]uint64{0, 4096, 7}, "mmap(W+X)"},
		{"mprotect", [6]uint64{0, 4096, 5}, "mprotect(W^X)"},
		{"personality", [6]uint64{0xffffffff}, "personality(query)"},
		{"personality", [6]uint64{0x0400000}, "personality(PER_LINUX|READ_IMPLIES_EXEC)"},
		{"ptrace", [6]uint64{16}, "ptrace(PTRACE_ATTACH)"},
		{"read", [6]uint64{1, 2, 3}, "read"},
	} {
		if got := Classify(scmp.X86_64, c.name, c.args); got != c.want {
			t.Errorf("Classify(%s, %#x) = %s, want %s", c.name, c.args, got, c.want)
		}
	}
}

// FuzzCanonicalKey: any text either is refused or has one canonical
// spelling, which reads back as itself and compiles to comparisons.
func FuzzCanonicalKey(f *testing.F) {
	for _, seed := range []string{"socket(AF_UNIX)", "socket(PF_INET, SOCK_RAW)", "openat(create)", "clone(CLONE_NEWUSER|CLONE_NEWNET)",
		"setns(any)", "prctl(0x53564d41)", "ioctl(21523)", "mmap(PROT_WRITE|PROT_EXEC)", "personality(PER_LINUX32|0x10)",
		"ptrace(18446744073709551615)", "read", "socket(", "x()", "unshare( none )"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		for _, arch := range []scmp.Arch{scmp.X86_64, scmp.I386, scmp.PPC64LE} {
			canon, err := CanonicalKey(arch, key)
			if err != nil {
				continue
			}
			again, err := CanonicalKey(arch, canon)
			if err != nil || again != canon {
				t.Fatalf("%s: %q -> %q -> %q, %v", arch, key, canon, again, err)
			}
			if _, class := SplitKey(canon); class != "" && len(ClassMatch(arch, canon)) == 0 {
				t.Fatalf("%s: %q has no comparisons", arch, canon)
			}
		}
	})
}

// mknod and mknodat split by the S_IFMT bits of mode, so that a FIFO line
// does not allow a block device (issue 43, item 5).
func TestMknodClassesByNodeKind(t *testing.T) {
	for _, c := range []struct {
		name string
		args [6]uint64
		want string
	}{
		{"mknodat", [6]uint64{0, 0, 0o010644}, "mknodat(fifo)"},
		{"mknodat", [6]uint64{0, 0, 0o060600, 8<<8 | 1}, "mknodat(block)"},
		{"mknodat", [6]uint64{0, 0, 0o020666}, "mknodat(char)"},
		{"mknodat", [6]uint64{0, 0, 0o140755}, "mknodat(socket)"},
		{"mknodat", [6]uint64{0, 0, 0o100644}, "mknodat(regular)"},
		{"mknodat", [6]uint64{0, 0, 0o644}, "mknodat(regular)"}, // type 0 is a regular file
		{"mknodat", [6]uint64{0, 0, 0o040755}, "mknodat(040000)"},
		// The kernel reads a umode_t: upper bits are not a way around.
		{"mknodat", [6]uint64{0, 0, 1<<32 | 0o060600}, "mknodat(block)"},
		{"mknod", [6]uint64{0, 0o010600}, "mknod(fifo)"},
		{"mknod", [6]uint64{0, 0o060600}, "mknod(block)"},
	} {
		if got := Classify(scmp.X86_64, c.name, c.args); got != c.want {
			t.Errorf("Classify(%s, %#o) = %q, want %q", c.name, c.args, got, c.want)
		}
		if !matches(ClassMatch(scmp.X86_64, c.want), c.args) {
			t.Errorf("ClassMatch(%q) does not match %#o", c.want, c.args)
		}
	}
	if matches(ClassMatch(scmp.X86_64, "mknodat(fifo)"), [6]uint64{0, 0, 0o060600}) {
		t.Error("mknodat(fifo) matches a block device")
	}
	for in, want := range map[string]string{
		"mknodat(fifo)": "mknodat(fifo)", "mknodat(block)": "mknodat(block)",
		"mknodat(0)": "mknodat(regular)", "mknodat(060000)": "mknodat(block)", "mknod(char)": "mknod(char)",
	} {
		if got, err := CanonicalKey(scmp.X86_64, in); err != nil || got != want {
			t.Errorf("CanonicalKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := CanonicalKey(scmp.X86_64, "mknodat(blockdev)"); err == nil || !strings.Contains(err.Error(), "fifo, socket, regular, char or block") {
		t.Errorf("mknodat(blockdev): %v", err)
	}
}

// matches reports whether args fall in any alternative of m.
func matches(m [][]ArgCmp, args [6]uint64) bool {
	for _, alt := range m {
		all := true
		for _, c := range alt {
			all = all && args[c.Arg]&c.Mask == c.Value
		}
		if all {
			return true
		}
	}
	return false
}
