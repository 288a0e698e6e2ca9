package baseline

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	seccomp "github.com/seccomp/libseccomp-golang"

	goldenfile "github.com/sysgate/sysgate/internal/golden"
	"github.com/sysgate/sysgate/internal/scmp"
)

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, "testdata/"+name, got)
}

// The runtime spec's LinuxSeccomp as runc, crun, containerd and Podman
// decode it (opencontainers/runtime-spec specs-go/config.go), written out
// here independently of OCIProfile so a renamed field fails the test.
type specSeccomp struct {
	DefaultAction    string        `json:"defaultAction"`
	DefaultErrnoRet  *uint         `json:"defaultErrnoRet,omitempty"`
	Architectures    []string      `json:"architectures,omitempty"`
	Flags            []string      `json:"flags,omitempty"`
	ListenerPath     string        `json:"listenerPath,omitempty"`
	ListenerMetadata string        `json:"listenerMetadata,omitempty"`
	Syscalls         []specSyscall `json:"syscalls,omitempty"`
}

type specSyscall struct {
	Names    []string `json:"names"`
	Action   string   `json:"action"`
	ErrnoRet *uint    `json:"errnoRet,omitempty"`
	Args     []struct {
		Index    uint   `json:"index"`
		Value    uint64 `json:"value"`
		ValueTwo uint64 `json:"valueTwo,omitempty"`
		Op       string `json:"op"`
	} `json:"args,omitempty"`
}

func TestExportOCI(t *testing.T) {
	p, err := Load("testdata/agents/python-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		golden string
		opts   OCIOptions
		action string
		errno  uint
	}{
		{"oci/python-readonly.json", OCIOptions{}, "SCMP_ACT_ERRNO", 1},
		{"oci/python-readonly-log.json", OCIOptions{Default: ActionLog}, "SCMP_ACT_LOG", 0},
		{"oci/python-readonly-kill.json", OCIOptions{Default: ActionKill}, "SCMP_ACT_KILL_PROCESS", 0},
	}
	for _, c := range cases {
		out, err := ExportOCI(p, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.golden, out)

		var spec specSeccomp
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			t.Fatalf("%s does not decode as a runtime-spec LinuxSeccomp: %v", c.golden, err)
		}
		if spec.DefaultAction != c.action {
			t.Errorf("defaultAction %q, want %q", spec.DefaultAction, c.action)
		}
		if (spec.DefaultErrnoRet != nil) != (c.errno != 0) || (spec.DefaultErrnoRet != nil && *spec.DefaultErrnoRet != c.errno) {
			t.Errorf("defaultErrnoRet %v, want %d", spec.DefaultErrnoRet, c.errno)
		}
		if len(spec.Architectures) != 2 || spec.Architectures[0] != "SCMP_ARCH_AARCH64" || spec.Architectures[1] != "SCMP_ARCH_X86_64" {
			t.Errorf("architectures %v", spec.Architectures)
		}
		if len(spec.Syscalls) != 1 || spec.Syscalls[0].Action != "SCMP_ACT_ALLOW" {
			t.Fatalf("syscalls %+v", spec.Syscalls)
		}
		names := map[string]bool{}
		for _, n := range spec.Syscalls[0].Names {
			names[n] = true
		}
		// Entries of the agent's file, its base, and its groups all allow.
		for _, want := range []string{"read", "connect", "unshare", "rt_sigreturn", "poll", "openat"} {
			if !names[want] {
				t.Errorf("%s missing from the export", want)
			}
		}
		if len(names) != len(spec.Syscalls[0].Names) {
			t.Errorf("duplicate names in the export")
		}
	}
}

// loadOCI builds a filter from an exported profile the way runc does
// (libcontainer/seccomp): the default action, then per rule and name an
// unconditional rule, or one conditional rule whose arguments all hold.
func loadOCI(t *testing.T, prof *OCIProfile) *Filter {
	t.Helper()
	if prof.DefaultAction != "SCMP_ACT_ERRNO" || prof.DefaultErrnoRet == nil {
		t.Fatalf("loadOCI handles the ERRNO default only, not %s", prof.DefaultAction)
	}
	f, err := seccomp.NewFilter(seccomp.ActErrno.SetReturnCode(int16(*prof.DefaultErrnoRet)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	for _, rule := range prof.Syscalls {
		if rule.Action != "SCMP_ACT_ALLOW" {
			t.Fatalf("rule action %s", rule.Action)
		}
		for _, name := range rule.Names {
			call, err := seccomp.GetSyscallFromName(name)
			if err != nil {
				continue // runc skips names the arch lacks
			}
			if len(rule.Args) == 0 {
				if err := f.AddRule(call, seccomp.ActAllow); err != nil {
					t.Fatal(err)
				}
				continue
			}
			var conds []seccomp.ScmpCondition
			for _, a := range rule.Args {
				if a.Op != "SCMP_CMP_MASKED_EQ" {
					t.Fatalf("op %s", a.Op)
				}
				c, err := seccomp.MakeCondition(a.Index, seccomp.CompareMaskedEqual, a.Value, a.ValueTwo)
				if err != nil {
					t.Fatal(err)
				}
				conds = append(conds, c)
			}
			if err := f.AddRuleConditional(call, seccomp.ActAllow, conds); err != nil {
				t.Fatal(err)
			}
		}
	}
	prog, err := exportBPF(f)
	if err != nil {
		t.Fatal(err)
	}
	return &Filter{Program: prog}
}

// An exported profile keeps the argument classes: loaded as runc loads
// it, it allows exactly the calls sysgate's own enforce filter allows.
func TestExportOCIKeepsArgumentClasses(t *testing.T) {
	native := scmp.Native()
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nsyscalls:\n  "+native.String()+":\n"+
		"    - socket(AF_UNIX)\n    - socket(AF_INET6)\n    - openat(read)\n    - \"clone(none)\"\n"+
		"    - mmap(W^X)\n    - ioctl(TCGETS)\n    - read\n    - prctl: any option\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := BuildOCI(p, OCIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var classRules int
	for _, r := range prof.Syscalls {
		if len(r.Args) > 0 {
			classRules++
			if slices.Contains(r.Names, "prctl") || slices.Contains(r.Names, "read") {
				t.Errorf("argument-blind syscall in a class rule: %+v", r)
			}
		}
	}
	if classRules == 0 {
		t.Fatalf("no argument rules exported: %+v", prof.Syscalls)
	}
	oci := loadOCI(t, prof)
	enforce, err := Compile(p, ModeEnforce, CompileOptions{ArgBlind: false})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"socket", "openat", "clone", "mmap", "ioctl", "prctl", "read", "write"} {
		nr := number(t, native, name)
		var argsList [][6]uint64
		if s := splitFor(native, name); s != nil {
			argsList = classArgs(rng, s)
		} else {
			argsList = [][6]uint64{{0, 1, 2}, {rng.Uint64(), rng.Uint64()}}
		}
		for _, a := range argsList {
			fromOCI := runFilterArgs(t, oci, native, nr, a)
			want := runFilterArgs(t, enforce, native, nr, a)
			allowedHere := want == retAllow
			if (fromOCI == retAllow) != allowedHere {
				t.Fatalf("%s %#x (%s): exported profile %#x, enforce filter %#x", name, a, Classify(native, name, a), fromOCI, want)
			}
		}
	}
}
