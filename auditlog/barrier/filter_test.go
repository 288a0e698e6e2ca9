package barrier

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData builds struct seccomp_data as a little-endian kernel lays
// it out, for x/net/bpf's VM: the VM loads words big-endian (packet
// order) where seccomp loads them native, so each 32-bit word is stored
// big-endian at its little-endian offset.
func seccompData(nr int32, arch uint32, arg0 uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], arch)
	binary.BigEndian.PutUint32(b[16:], uint32(arg0))
	binary.BigEndian.PutUint32(b[20:], uint32(arg0>>32))
	return b
}

func TestLogOneSyscallProgram(t *testing.T) {
	const x86 = 0xc000003e
	raw := make([]bpf.RawInstruction, 0)
	for _, ins := range LogOneSyscall(x86, 110, true, 0x53797347) {
		raw = append(raw, bpf.RawInstruction{Op: ins.Code, Jt: ins.Jt, Jf: ins.Jf, K: ins.K})
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("program does not disassemble: %v", raw)
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		want uint32
	}{
		{"marker", seccompData(110, x86, 0x53797347), unix.SECCOMP_RET_LOG},
		{"marker with high bits in arg0", seccompData(110, x86, 0xffff_ffff_5379_7347), unix.SECCOMP_RET_LOG},
		{"same syscall, other argument", seccompData(110, x86, 0), unix.SECCOMP_RET_ALLOW},
		{"other syscall", seccompData(39, x86, 0x53797347), unix.SECCOMP_RET_ALLOW},
		{"other arch", seccompData(110, 0x40000003, 0x53797347), unix.SECCOMP_RET_ALLOW},
	}
	for _, c := range cases {
		got, err := vm.Run(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s: action %#x, want %#x", c.name, got, c.want)
		}
	}

	all := LogOneSyscall(x86, 110, false, 0)
	if len(all) != 6 || all[len(all)-2].K != unix.SECCOMP_RET_LOG {
		t.Errorf("without the argument match: %v", all)
	}
}
