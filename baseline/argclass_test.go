package baseline

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

// quoteKey writes a key as a YAML scalar.
func quoteKey(key string) string { return `"` + key + `"` }

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

func TestClassRisks(t *testing.T) {
	for key, want := range map[string]string{
		"socket(AF_PACKET)":         "raw-network, high",
		"socket(AF_INET, SOCK_RAW)": "raw-network, high",
		"socket(AF_INET)":           "",
		"clone(CLONE_NEWUSER)":      "namespace, high",
		"clone(CLONE_NEWNET)":       "namespace",
		"clone(none)":               "",
		"unshare(none)":             "",
		"unshare":                   "namespace",
		"mmap(W+X)":                 "exec-memory, high",
		"mprotect(W^X)":             "",
		"ioctl(TIOCSTI)":            "terminal, high",
		"ioctl(TCGETS)":             "",
		"prctl(PR_SET_NAME)":        "",
		"prctl(PR_SET_SECCOMP)":     "seccomp",
		"prctl":                     "seccomp",
		"ptrace(PTRACE_TRACEME)":    "process-access",
		"personality(PER_LINUX|READ_IMPLIES_EXEC)": "exec-memory, high",
	} {
		if got := RiskLabel(key); got != want {
			t.Errorf("RiskLabel(%s) = %q, want %q", key, got, want)
		}
		if want != "" && RiskReason(key) == "" {
			t.Errorf("%s is risky without a reason", key)
		}
	}
}

func TestParseClasses(t *testing.T) {
	native := scmp.Native()
	doc := "version: 1\nsyscalls:\n  " + native.String() + ":\n" +
		"    - socket(PF_UNIX)\n" +
		"    - openat(read)\n" +
		"    - \"clone(CLONE_NEWUSER)\": the sandbox test makes a user namespace\n" +
		"    - read\n"
	d, err := ParseDocument("a.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range d.Syscalls[0].Entries {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "clone(CLONE_NEWUSER) openat(read) read socket(AF_UNIX)" {
		t.Errorf("entries %s", got)
	}
	// fmt writes the canonical spelling, and reads back the same.
	again, err := ParseDocument("a.yaml", d.Format())
	if err != nil || string(again.Format()) != string(d.Format()) {
		t.Errorf("format does not round-trip: %v\n%s", err, d.Format())
	}

	for _, c := range []struct{ doc, want string }{
		{"    - clone(CLONE_NEWUSER)\n", "clone(CLONE_NEWUSER) is risky (namespace, high)"},
		{"    - socket(AF_NOPE)\n", "a.yaml:4: socket(AF_NOPE): unknown address family"},
		{"    - socket\n    - socket(AF_UNIX)\n", "the argument-blind entry already allows every class"},
		{"    - socket(AF_UNIX)\n    - socket(PF_UNIX)\n", "socket(AF_UNIX) listed twice"},
		{"    - nosuch(AF_UNIX)\n", "unknown syscall \"nosuch\""},
	} {
		_, err := ParseDocument("a.yaml", []byte("version: 1\nsyscalls:\n  "+native.String()+":\n"+c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.doc, err, c.want)
		}
	}
	// An argument-blind entry of a classed syscall loads, and warns.
	d, err = ParseDocument("a.yaml", []byte("version: 1\nsyscalls:\n  "+native.String()+":\n    - socket\n    - read\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Kind != KindArgBlind || !strings.Contains(d.Warnings[0].Message, "socket(AF_UNIX)") {
		t.Errorf("warnings %v", d.Warnings)
	}
}

func TestProfileAllowsClasses(t *testing.T) {
	native := scmp.Native()
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nsyscalls:\n  "+native.String()+":\n    - socket(AF_UNIX)\n    - prctl: any option\n    - read\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{
		"socket(AF_UNIX)": true, "socket(AF_INET)": false, "socket": false,
		"prctl(PR_SET_SECCOMP)": true, "prctl": true, "read": true,
	} {
		if got := p.Allows(native, key); got != want {
			t.Errorf("Allows(%s) = %v", key, got)
		}
	}
	if got := p.Classes(native, "socket"); len(got) != 1 || got[0] != "socket(AF_UNIX)" {
		t.Errorf("Classes(socket) = %v", got)
	}
	o := NewObservation("a")
	o.Add(native, "socket(AF_INET)", 1)
	o.Add(native, "prctl(PR_SET_NAME)", 2)
	d := Diff(p, o)
	if len(d.New) != 1 || d.New[0].Syscall != "socket(AF_INET)" {
		t.Errorf("new %+v", d.New)
	}
	// The blind prctl was used through a class; socket(AF_UNIX) and read
	// were not.
	if len(d.Unused) != 2 || d.Unused[0].Syscall != "read" || d.Unused[1].Syscall != "socket(AF_UNIX)" {
		t.Errorf("unused %+v", d.Unused)
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
