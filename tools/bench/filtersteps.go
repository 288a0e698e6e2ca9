package main

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/scmp"
)

// filterSteps counts the instructions a seccomp filter executes for one
// call of syscall nr on arch (arguments all zero) and returns its action.
// The kernel runs the filter JIT-compiled, so the count, not a timing, is
// what tells two filters' costs for a call apart on a machine too noisy
// to resolve a few nanoseconds. Only the instructions libseccomp emits
// are modelled (load word absolute, and with K, jumps against K, return
// K); anything else is an error, not a guess.
func filterSteps(prog []unix.SockFilter, arch scmp.Arch, nr int) (steps int, action uint32, err error) {
	// struct seccomp_data in the host's byte order, as the kernel loads it.
	data := make([]byte, 64)
	binary.NativeEndian.PutUint32(data[0:], uint32(int32(nr)))
	binary.NativeEndian.PutUint32(data[4:], arch.AuditArch())
	var a uint32
	for pc := 0; pc < len(prog); {
		steps++
		ins := prog[pc]
		switch {
		case ins.Code == unix.BPF_LD|unix.BPF_W|unix.BPF_ABS:
			if int(ins.K)+4 > len(data) {
				return steps, 0, fmt.Errorf("instruction %d loads offset %d, past seccomp_data", pc, ins.K)
			}
			a = binary.NativeEndian.Uint32(data[ins.K:])
			pc++
		case ins.Code == unix.BPF_ALU|unix.BPF_AND|unix.BPF_K:
			a &= ins.K
			pc++
		case ins.Code == unix.BPF_JMP|unix.BPF_JA:
			pc += 1 + int(ins.K)
		case ins.Code&0x07 == unix.BPF_JMP && ins.Code&0x08 == unix.BPF_K:
			var taken bool
			switch ins.Code & 0xf0 {
			case unix.BPF_JEQ:
				taken = a == ins.K
			case unix.BPF_JGT:
				taken = a > ins.K
			case unix.BPF_JGE:
				taken = a >= ins.K
			case unix.BPF_JSET:
				taken = a&ins.K != 0
			default:
				return steps, 0, fmt.Errorf("instruction %d: jump %#x not modelled", pc, ins.Code)
			}
			if taken {
				pc += 1 + int(ins.Jt)
			} else {
				pc += 1 + int(ins.Jf)
			}
		case ins.Code == unix.BPF_RET|unix.BPF_K:
			return steps, ins.K, nil
		default:
			return steps, 0, fmt.Errorf("instruction %d: %#x not modelled", pc, ins.Code)
		}
	}
	return steps, 0, fmt.Errorf("the program ran off its end after %d instructions", steps)
}

// compiledSteps compiles the profile at path for a check run on the
// notify backend or not, with programs observed or not, as harness.Run
// compiles it (compile.Options from its options; the launcher's
// hand-off prefix, the same either way, left out), and counts the
// instructions a call of syscall runs through; insns is the program's
// length. A call the filter does not allow is an error: the
// microbenchmark's loop would not be measuring the allow path.
func compiledSteps(path string, notify, programs bool, syscall string) (steps, insns int, err error) {
	p, err := baseline.LoadStackFor(hostSelector(), path)
	if err != nil {
		return 0, 0, err
	}
	f, err := compile.Compile(p, baseline.ModeCheck, compile.Options{Notify: notify, Programs: programs})
	if err != nil {
		return 0, 0, err
	}
	native := scmp.Native()
	nr, ok := scmp.Number(native, syscall)
	if !ok {
		return 0, 0, fmt.Errorf("no number for %s on %s", syscall, native)
	}
	steps, action, err := filterSteps(f.Program, native, nr)
	if err != nil {
		return 0, 0, fmt.Errorf("filter of %s for %s: %w", path, syscall, err)
	}
	if action != unix.SECCOMP_RET_ALLOW {
		return 0, 0, fmt.Errorf("filter of %s: %s returns %#x, not allow", path, syscall, action)
	}
	return steps, len(f.Program), nil
}
