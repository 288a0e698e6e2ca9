//go:build linux && cgo

package compile

import (
	"encoding/binary"
	"errors"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
)

// seccompData fabricates struct seccomp_data as the kernel lays it out on
// a little-endian machine. x/net/bpf's VM loads 32-bit words big-endian,
// so each word is stored big-endian and the two halves of a 64-bit field
// low word first: the filter then sees the values the kernel would give.
func seccompData(nr int32, auditArch uint32, ip uint64, args [6]uint64) []byte {
	b := make([]byte, 0, 64)
	word := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	word(uint32(nr))
	word(auditArch)
	for _, v := range append([]uint64{ip}, args[:]...) {
		word(uint32(v))
		word(uint32(v >> 32))
	}
	return b
}

func runFilter(t testing.TB, f *Filter, arch scmp.Arch, nr int) uint32 {
	t.Helper()
	return runFilterArgs(t, f, arch, nr, [6]uint64{1, 2, 3})
}

func runFilterArgs(t testing.TB, f *Filter, arch scmp.Arch, nr int, args [6]uint64) uint32 {
	t.Helper()
	raw := make([]bpf.RawInstruction, len(f.Program))
	for i, ins := range f.Program {
		raw[i] = bpf.RawInstruction{Op: ins.Code, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("program does not disassemble")
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatalf("bpf vm: %v", err)
	}
	ret, err := vm.Run(seccompData(int32(nr), arch.AuditArch(), 0x7fff12345678, args))
	if err != nil {
		t.Fatalf("bpf run: %v", err)
	}
	return uint32(ret)
}

func number(t testing.TB, arch scmp.Arch, name string) int {
	t.Helper()
	nr, ok := scmp.Number(arch, name)
	if !ok {
		t.Fatalf("no number for %s on %s", name, arch)
	}
	return nr
}

var writeFile = testutil.WriteFile

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retLog    = unix.SECCOMP_RET_LOG
	retNotify = unix.SECCOMP_RET_USER_NOTIF
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
)

func nativeProfile(t testing.TB) *baseline.Profile {
	t.Helper()
	native := scmp.Native()
	path := writeFile(t, t.TempDir(), "agent.yaml", "version: 1\nagent: test\nsyscalls:\n  "+native.String()+":\n    - close\n    - getppid\n    - openat\n    - read\n")
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

func foreignArch(native scmp.Arch) scmp.Arch {
	if native == scmp.X86_64 {
		return scmp.I386
	}
	return scmp.ARM
}

func TestCompileModes(t *testing.T) {
	native := scmp.Native()
	p := nativeProfile(t)
	foreign := foreignArch(native)
	cases := []struct {
		mode    baseline.Mode
		opts    Options
		allowed uint32 // getppid, in the profile
		other   uint32 // getuid, not in the profile
		foreign uint32 // getppid on a foreign ABI
	}{
		{baseline.ModeRecord, Options{}, retLog, retLog, retLog},
		{baseline.ModeCheck, Options{}, retAllow, retLog, retLog},
		{baseline.ModeCheck, Options{Linear: true}, retAllow, retLog, retLog},
		{baseline.ModeEnforce, Options{}, retAllow, retEPERM, retEPERM},
		{baseline.ModeEnforce, Options{Action: baseline.ActionKill}, retAllow, retKill, retKill},
	}
	for _, c := range cases {
		f, err := Compile(p, c.mode, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		if f.Tree == c.opts.Linear {
			t.Errorf("%s %+v: Tree = %v", c.mode, c.opts, f.Tree)
		}
		if got := runFilter(t, f, native, number(t, native, "getppid")); got != c.allowed {
			t.Errorf("%s %+v: getppid -> %#x, want %#x", c.mode, c.opts, got, c.allowed)
		}
		if got := runFilter(t, f, native, number(t, native, "getuid")); got != c.other {
			t.Errorf("%s %+v: getuid -> %#x, want %#x", c.mode, c.opts, got, c.other)
		}
		if got := runFilter(t, f, foreign, number(t, foreign, "getppid")); got != c.foreign {
			t.Errorf("%s %+v: %s getppid -> %#x, want %#x", c.mode, c.opts, foreign, got, c.foreign)
		}
		if native == scmp.X86_64 {
			// An x32 call carries the x86_64 audit arch with bit 30 set in
			// the number: it must never pass as the x86_64 syscall.
			if got := runFilter(t, f, scmp.X32, number(t, scmp.X32, "getppid")); got != c.foreign {
				t.Errorf("%s: x32 getppid -> %#x, want %#x (never the x86_64 verdict)", c.mode, got, c.foreign)
			}
		}
	}
}

func TestCompileRecordNeedsNoProfile(t *testing.T) {
	f, err := Compile(nil, baseline.ModeRecord, Options{})
	if err != nil {
		t.Fatal(err)
	}
	native := scmp.Native()
	for _, name := range []string{"read", "execve", "getppid"} {
		if got := runFilter(t, f, native, number(t, native, name)); got != retLog {
			t.Errorf("record: %s -> %#x, want LOG", name, got)
		}
	}
	if _, err := Compile(nil, 0, Options{}); err == nil {
		t.Errorf("zero mode compiled")
	}
}

func TestCompilePerArchSections(t *testing.T) {
	if scmp.Native() != scmp.X86_64 {
		t.Skip("arch-specific numbers below are for an x86_64 host")
	}
	path := writeFile(t, t.TempDir(), "a.yaml", `version: 1
syscalls:
  i386:
    - getuid32
  x32:
    - gettid
  x86_64:
    - getppid
`)
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Compile(p, baseline.ModeCheck, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Arches) != 3 {
		t.Errorf("arches %v", f.Arches)
	}
	checks := []struct {
		arch scmp.Arch
		name string
		want uint32
	}{
		{scmp.X86_64, "getppid", retAllow},
		{scmp.I386, "getuid32", retAllow},
		{scmp.I386, "getppid", retLog},    // only allowed on x86_64
		{scmp.X86_64, "getuid", retLog},   // getuid32 is i386 only
		{scmp.AArch64, "getppid", retLog}, // arch absent from filter
		{scmp.X32, "gettid", retAllow},
		{scmp.X32, "getppid", retLog},   // allowed on x86_64 only
		{scmp.X86_64, "gettid", retLog}, // allowed on x32 only
	}
	for _, c := range checks {
		if got := runFilter(t, f, c.arch, number(t, c.arch, c.name)); got != c.want {
			t.Errorf("%s %s -> %#x, want %#x", c.arch, c.name, got, c.want)
		}
	}
}

func TestCompileLayeredProfileWithForeignSection(t *testing.T) {
	p, err := baseline.Load("../testdata/agents/python-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Compile(p, baseline.ModeCheck, Options{})
	if err != nil {
		t.Fatal(err)
	}
	native := scmp.Native()
	if len(f.Arches) != 2 || f.Arches[0] != native {
		t.Errorf("arches %v: want native first plus the profile's other arch", f.Arches)
	}
	// Allowed through the base, the agent's file and a group; refused
	// (logged) elsewhere, and the aarch64 section allows only openat there.
	for name, want := range map[string]uint32{"read": retAllow, "connect": retAllow, "rt_sigreturn": retAllow, "getuid": retLog} {
		if native != scmp.X86_64 {
			break
		}
		if got := runFilter(t, f, native, number(t, native, name)); got != want {
			t.Errorf("%s -> %#x, want %#x", name, got, want)
		}
	}
	if got := runFilter(t, f, scmp.AArch64, number(t, scmp.AArch64, "openat")); native == scmp.X86_64 && got != retAllow {
		t.Errorf("aarch64 openat -> %#x, want ALLOW", got)
	}
	if got := runFilter(t, f, scmp.AArch64, number(t, scmp.AArch64, "read")); got != retLog {
		t.Errorf("aarch64 read -> %#x, want LOG", got)
	}
	if _, err := Compile(p, baseline.ModeEnforce, Options{Action: baseline.ActionLog}); !errors.Is(err, ErrCompile) {
		t.Errorf("enforce with a LOG default: %v", err)
	}
	if fp := f.SockFprog(); int(fp.Len) != len(f.Program) || fp.Filter != &f.Program[0] {
		t.Errorf("SockFprog does not describe the program")
	}
}
