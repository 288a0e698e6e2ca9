package scmp

import "testing"

func TestNamesResolveThroughLibseccomp(t *testing.T) {
	cases := []struct {
		arch Arch
		nr   int
		name string
	}{
		{X86_64, 0, "read"},
		{X86_64, 110, "getppid"},
		{I386, 1, "exit"},
		{I386, 64, "getppid"},
		{AArch64, 173, "getppid"},
		{X32, x32SyscallBit + 110, "getppid"},
	}
	for _, c := range cases {
		got, ok := Name(c.arch, c.nr)
		if !ok || got != c.name {
			t.Errorf("Name(%v, %d) = %q, %v; want %q", c.arch, c.nr, got, ok, c.name)
		}
		nr, ok := Number(c.arch, c.name)
		if !ok || nr != c.nr {
			t.Errorf("Number(%v, %q) = %d, %v; want %d", c.arch, c.name, nr, ok, c.nr)
		}
	}
	if _, ok := Name(X86_64, 1000); ok {
		t.Errorf("syscall 1000 should be unknown on x86_64")
	}
	if got := NameOrNumber(X86_64, 1000); got != "1000" {
		t.Errorf("NameOrNumber(1000) = %q", got)
	}
}

func TestClosestSuggestsRealName(t *testing.T) {
	for typo, want := range map[string]string{"opnat": "openat", "getpid2": "getpid", "clone33": "clone3"} {
		if got := Closest(X86_64, typo); got != want {
			t.Errorf("Closest(%q) = %q; want %q", typo, got, want)
		}
	}
	if got := Closest(X86_64, "zzzzzzzzzzzzzzzzzzzz"); got != "" {
		t.Errorf("Closest(nonsense) = %q; want no suggestion", got)
	}
}

func TestArchFromAudit(t *testing.T) {
	cases := []struct {
		audit uint32
		nr    int
		want  Arch
	}{
		{0xc000003e, 1, X86_64},
		{0xc000003e, x32SyscallBit + 1, X32},
		{0x40000003, 1, I386},
		{0xc00000b7, 1, AArch64},
		{0x40000028, 1, ARM},
	}
	for _, c := range cases {
		got, _, ok := FromAudit(c.audit, c.nr)
		if !ok || got != c.want {
			t.Errorf("FromAudit(%#x, %d) = %v, %v; want %v", c.audit, c.nr, got, ok, c.want)
		}
	}
	if _, _, ok := FromAudit(0x1234, 1); ok {
		t.Errorf("unknown audit arch accepted")
	}
	for _, name := range ArchNames() {
		a, err := ParseArch(name)
		if err != nil || a.String() != name {
			t.Errorf("ParseArch(%q) = %v, %v", name, a, err)
		}
	}
	if _, err := ParseArch("amd64"); err == nil {
		t.Errorf("ParseArch accepted a non-canonical name")
	}
	if Native() != X86_64 && Native() != AArch64 {
		t.Logf("native arch %v", Native())
	}
}
