//go:build linux && cgo

package compile

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// bigProfile allows n syscalls of the native arch (every other name
// libseccomp knows, risky ones skipped), like a real agent's baseline.
func bigProfile(b *testing.B, n int) *baseline.Profile {
	native := scmp.Native()
	var lines []string
	for i, name := range scmp.Names(native) {
		if len(lines) == n {
			break
		}
		if i%2 == 0 && !risk.Of(name).Risky() || i%7 == 1 && !risk.Of(name).Risky() {
			lines = append(lines, "    - "+name)
		}
	}
	path := writeFile(b, b.TempDir(), "big.yaml", "version: 1\nsyscalls:\n  "+native.String()+":\n"+strings.Join(lines, "\n")+"\n")
	p, err := baseline.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkFilterVM runs a check-mode filter over 169 allowed syscalls in
// the BPF VM, with libseccomp's binary tree and with its default linear
// order, for an allowed syscall early and late in the list and one that
// is not allowed (the LOG path).
func BenchmarkFilterVM(b *testing.B) {
	p := bigProfile(b, 169)
	native := scmp.Native()
	entries := p.Entries(native)
	if len(entries) != 169 {
		b.Fatalf("profile has %d entries", len(entries))
	}
	probes := map[string]string{
		"allowed-first": entries[0].Name,
		"allowed-last":  entries[len(entries)-1].Name,
		"not-allowed":   "",
	}
	for _, name := range scmp.Names(native) {
		if !p.Allows(native, name) {
			probes["not-allowed"] = name
		}
	}
	for _, linear := range []bool{false, true} {
		f, err := Compile(p, baseline.ModeCheck, Options{Linear: linear})
		if err != nil {
			b.Fatal(err)
		}
		raw := make([]bpf.RawInstruction, len(f.Program))
		for i, ins := range f.Program {
			raw[i] = bpf.RawInstruction{Op: ins.Code, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
		}
		insns, _ := bpf.Disassemble(raw)
		vm, err := bpf.NewVM(insns)
		if err != nil {
			b.Fatal(err)
		}
		layout := "tree"
		if linear {
			layout = "linear"
		}
		for _, probe := range []string{"allowed-first", "allowed-last", "not-allowed"} {
			data := seccompData(int32(number(b, native, probes[probe])), native.AuditArch(), 0, [6]uint64{})
			steps, ret := stepsExecuted(b, f, data)
			if want, _ := vm.Run(data); uint32(want) != ret {
				b.Fatalf("step counter disagrees with the VM: %#x vs %#x", ret, want)
			}
			b.Run(fmt.Sprintf("%s-%dinsns/%s", layout, len(f.Program), probe), func(b *testing.B) {
				for b.Loop() {
					if _, err := vm.Run(data); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(steps), "steps/op")
			})
		}
	}
}

// stepsExecuted counts the instructions the kernel executes for one
// syscall: the VM's time is an interpreter's, the step count is what the
// kernel's (JIT-compiled) filter pays. The VM does not count, so this walks
// the jumps itself for the instruction classes libseccomp emits (ld abs,
// jmp k, ret k, alu and k).
func stepsExecuted(tb testing.TB, f *Filter, data []byte) (steps int, ret uint32) {
	tb.Helper()
	var a uint32
	for pc := 0; pc < len(f.Program); {
		steps++
		ins := f.Program[pc]
		switch ins.Code & 0x07 { // BPF_CLASS
		case 0x00: // BPF_LD (|BPF_W|BPF_ABS)
			a = binary.BigEndian.Uint32(data[ins.K:])
			pc++
		case 0x04: // BPF_ALU
			switch ins.Code & 0xf0 {
			case 0x50: // BPF_AND
				a &= ins.K
			default:
				tb.Fatalf("alu op %#x not modelled", ins.Code)
			}
			pc++
		case 0x05: // BPF_JMP
			var taken bool
			switch ins.Code & 0xf0 {
			case 0x00: // BPF_JA
				pc += 1 + int(ins.K)
				continue
			case 0x10:
				taken = a == ins.K
			case 0x20:
				taken = a > ins.K
			case 0x30:
				taken = a >= ins.K
			case 0x40:
				taken = a&ins.K != 0
			default:
				tb.Fatalf("jump op %#x not modelled", ins.Code)
			}
			if taken {
				pc += 1 + int(ins.Jt)
			} else {
				pc += 1 + int(ins.Jf)
			}
		case 0x06: // BPF_RET
			return steps, ins.K
		default:
			tb.Fatalf("instruction class %#x not modelled", ins.Code)
		}
	}
	tb.Fatalf("program ran off its end")
	return 0, 0
}
