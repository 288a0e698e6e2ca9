//go:build linux && cgo

package compile

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The run filter exists for its listener and must not notify: a held
// clone returns EINTR when a signal is pending before the harness receives
// it, which a native fork never does.
func TestListenerFilterNotifiesNothing(t *testing.T) {
	native := scmp.Native()
	foreign := foreignArch(native)
	path := writeFile(t, t.TempDir(), "agent.yaml", "version: 1\nagent: test\nsyscalls:\n  "+native.String()+
		":\n    - clone\n    - getppid\n  "+foreign.String()+":\n    - getppid\n")
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []baseline.Mode{baseline.ModeCheck, baseline.ModeEnforce, baseline.ModeRecord} {
		f, err := Compile(p, mode, Options{})
		if err != nil {
			t.Fatal(err)
		}
		listener := &Filter{Program: f.Listener}
		for _, c := range []struct {
			arch scmp.Arch
			name string
		}{{native, "clone"}, {native, "clone3"}, {native, "fork"}, {native, "getppid"}, {foreign, "clone"}} {
			if got := runFilter(t, listener, c.arch, number(t, c.arch, c.name)); got != unix.SECCOMP_RET_ALLOW {
				t.Errorf("%s: listener filter gives %s %s %#x, want ALLOW", mode, c.arch, c.name, got)
			}
		}
	}
}
