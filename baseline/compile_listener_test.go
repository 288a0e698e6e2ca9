package baseline

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestListenerFilterHoldsOnlyAllowedProcessCreation(t *testing.T) {
	native := scmp.Native()
	foreign := foreignArch(native)
	path := writeFile(t, t.TempDir(), "agent.yaml", "version: 1\nagent: test\nsyscalls:\n  "+native.String()+
		":\n    - clone\n    - getppid\n  "+foreign.String()+":\n    - getppid\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeCheck, ModeEnforce} {
		f, err := Compile(p, mode, CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		listener := &Filter{Program: f.Listener}
		for _, c := range []struct {
			arch scmp.Arch
			name string
			want uint32
		}{
			{native, "clone", unix.SECCOMP_RET_USER_NOTIF}, // allowed: held during a kill
			{native, "clone3", unix.SECCOMP_RET_ALLOW},     // not allowed: the main filter logs it
			{native, "getppid", unix.SECCOMP_RET_ALLOW},
			{foreign, "clone", unix.SECCOMP_RET_ALLOW}, // not allowed on that arch
		} {
			if got := runFilter(t, listener, c.arch, number(t, c.arch, c.name)); got != c.want {
				t.Errorf("%s: listener filter gives %s %s %#x, want %#x", mode, c.arch, c.name, got, c.want)
			}
		}
	}
	f, err := Compile(p, ModeRecord, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := runFilter(t, &Filter{Program: f.Listener}, native, number(t, native, "clone")); got != unix.SECCOMP_RET_ALLOW {
		t.Errorf("record: listener filter gives clone %#x; a notification would take it out of the log", got)
	}
}
