//go:build linux && cgo

package compile

import (
	"math/rand/v2"
	"slices"
	"testing"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	seccomp "github.com/seccomp/libseccomp-golang"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/export"
	"github.com/sysgate/sysgate/internal/scmp"
)

// loadOCI builds a filter from a resolved profile the way runc does
// (libcontainer/seccomp): the default action, then per rule and name an
// unconditional rule, or one conditional rule whose arguments all hold.
func loadOCI(t *testing.T, prof *specs.LinuxSeccomp) *Filter {
	t.Helper()
	if prof.DefaultAction != specs.ActErrno || prof.DefaultErrnoRet == nil {
		t.Fatalf("loadOCI handles the ERRNO default only, not %s", prof.DefaultAction)
	}
	f, err := seccomp.NewFilter(seccomp.ActErrno.SetReturnCode(int16(*prof.DefaultErrnoRet)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	for _, rule := range prof.Syscalls {
		if rule.Action != specs.ActAllow {
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
				if a.Op != specs.OpMaskedEqual {
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

// An exported profile keeps the argument classes: resolved by moby's
// LoadProfile and loaded as runc loads it, it allows exactly the calls
// sysgate's own enforce filter allows.
func TestExportOCIKeepsArgumentClasses(t *testing.T) {
	native := scmp.Native()
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nsyscalls:\n  "+native.String()+":\n"+
		"    - socket(AF_UNIX)\n    - socket(AF_INET6)\n    - openat(read)\n    - \"clone(none)\"\n"+
		"    - mmap(W^X)\n    - ioctl(TCGETS)\n    - read\n    - prctl: any option\n")
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := export.ExportOCI(p, export.OCIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prof, err := mobyseccomp.LoadProfile(string(out), &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}})
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
	enforce, err := Compile(p, baseline.ModeEnforce, Options{ArgBlind: false})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"socket", "openat", "clone", "mmap", "ioctl", "prctl", "read", "write"} {
		nr := number(t, native, name)
		var argsList [][6]uint64
		if argclass.HasClasses(native, name) {
			argsList = classArgs(rng, native, name)
		} else {
			argsList = [][6]uint64{{0, 1, 2}, {rng.Uint64(), rng.Uint64()}}
		}
		for _, a := range argsList {
			fromOCI := runFilterArgs(t, oci, native, nr, a)
			want := runFilterArgs(t, enforce, native, nr, a)
			allowedHere := want == retAllow
			if (fromOCI == retAllow) != allowedHere {
				t.Fatalf("%s %#x (%s): exported profile %#x, enforce filter %#x", name, a, argclass.Classify(native, name, a), fromOCI, want)
			}
		}
	}
}
