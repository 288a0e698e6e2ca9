package baseline

import (
	"reflect"
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

func TestDiffNewAndUnused(t *testing.T) {
	p, err := Load("testdata/agents/python-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	agentFile := "testdata/agents/python-readonly.yaml"
	o := obs("python-readonly", 1, map[scmp.Arch]map[string]uint64{
		scmp.X86_64:  {"read": 10, "connect": 1, "socket": 1, "accept4": 2, "zzz": 0, "mount": 1, "getsockname": 1, "getppid": 1, "unshare": 1, "write": 3, "1000": 1},
		scmp.AArch64: {"openat": 1, "read": 2},
		scmp.I386:    {"getuid32": 1},
	})
	delete(o.Syscalls[scmp.X86_64], "zzz")
	r := Diff(p, o)
	wantNew := []Finding{
		{Arch: scmp.AArch64, Syscall: "read", Count: 2, File: agentFile, Line: 10},  // after openat (line 9)
		{Arch: scmp.I386, Syscall: "getuid32", Count: 1, File: agentFile, Line: 10}, // new section before x86_64
		{Arch: scmp.X86_64, Syscall: "1000", Count: 1, File: agentFile, Line: 11},   // sorts first
		{Arch: scmp.X86_64, Syscall: "accept4", Count: 2, File: agentFile, Line: 11},
		{Arch: scmp.X86_64, Syscall: "getppid", Count: 1, File: agentFile, Line: 13}, // before getsockname's comment
		{Arch: scmp.X86_64, Syscall: "mount", Count: 1, Risk: risk.Mount, Level: risk.Medium, File: agentFile, Line: 15},
	}
	if !reflect.DeepEqual(r.New, wantNew) {
		t.Errorf("new:\n got %+v\nwant %+v", r.New, wantNew)
	}
	wantUnused := []Finding{{Arch: scmp.X86_64, Syscall: "getpeername", File: agentFile, Line: 12}}
	if !reflect.DeepEqual(r.Unused, wantUnused) {
		t.Errorf("unused:\n got %+v\nwant %+v", r.Unused, wantUnused)
	}
}

func TestDiffInsertLines(t *testing.T) {
	dir := t.TempDir()
	noSyscalls := writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nextends: [b.yaml]\ngroups:\n  g:\n    reason: r\n    syscalls:\n      x86_64: [poll]\n")
	writeFile(t, dir, "b.yaml", "version: 1\nsyscalls:\n  x86_64: [read]\n")
	p, err := Load(noSyscalls)
	if err != nil {
		t.Fatal(err)
	}
	r := Diff(p, obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"write": 1, "read": 1, "poll": 1}}))
	if len(r.New) != 1 || r.New[0].File != noSyscalls || r.New[0].Line != 4 {
		t.Errorf("new syscalls key goes before groups (line 4): %+v", r.New)
	}
	if len(r.Unused) != 0 {
		t.Errorf("bases and groups are never unused: %+v", r.Unused)
	}
	if r := Diff(nil, obs("", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})); len(r.New) != 1 || r.New[0].File != "" {
		t.Errorf("diff against no profile: %+v", r)
	}
}
