package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestFilterSteps(t *testing.T) {
	native := scmp.Native()
	getppid, ok := scmp.Number(native, "getppid")
	if !ok {
		t.Fatal("no getppid")
	}
	ins := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	prog := []unix.SockFilter{
		ins(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, 4, 0, 0), // arch
		ins(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, native.AuditArch(), 1, 0),
		ins(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS, 0, 0),
		ins(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, 0, 0, 0), // nr
		ins(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, 0xffff, 0, 0),
		ins(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, uint32(getppid)+1, 2, 0),
		ins(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, uint32(getppid), 0, 1),
		ins(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW, 0, 0),
		ins(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_LOG, 0, 0),
	}
	for _, tc := range []struct {
		what   string
		nr     int
		steps  int
		action uint32
	}{
		{"getppid", getppid, 7, unix.SECCOMP_RET_ALLOW},
		{"above getppid", getppid + 1, 6, unix.SECCOMP_RET_LOG},
		{"below getppid", getppid - 1, 7, unix.SECCOMP_RET_LOG},
	} {
		steps, action, err := filterSteps(prog, native, tc.nr)
		if err != nil || steps != tc.steps || action != tc.action {
			t.Errorf("%s: %d steps, action %#x, %v; want %d, %#x", tc.what, steps, action, err, tc.steps, tc.action)
		}
	}
	// Scratch memory (BPF_ST) is not what libseccomp emits: an error,
	// not a count.
	if _, _, err := filterSteps([]unix.SockFilter{ins(unix.BPF_ST, 0, 0, 0)}, native, getppid); err == nil {
		t.Error("an unmodelled instruction gave no error")
	}
	if _, _, err := filterSteps(prog[:2], native, getppid); err == nil {
		t.Error("a program without a return gave no error")
	}
	if _, _, err := filterSteps([]unix.SockFilter{ins(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, 64, 0, 0)}, native, getppid); err == nil {
		t.Error("a load past seccomp_data gave no error")
	}
}

// TestCompiledSteps compiles a small baseline as a check run would and
// runs its filter: getppid is allowed with programs and without, and a
// syscall the baseline leaves out is an error, not a step count.
func TestCompiledSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.yaml")
	text := "version: 1\nagent: bench\nsyscalls:\n  " + scmp.Native().String() + ":\n    - execve\n    - exit_group\n    - getppid\n    - read\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, notify := range []bool{false, true} {
		for _, programs := range []bool{false, true} {
			steps, insns, err := compiledSteps(path, notify, programs, "getppid")
			if err != nil || steps == 0 || insns < steps {
				t.Errorf("notify %v, programs %v: %d steps of %d, %v", notify, programs, steps, insns, err)
			}
		}
	}
	if _, _, err := compiledSteps(path, false, true, "uname"); err == nil {
		t.Error("uname, outside the baseline, gave no error")
	}
}
