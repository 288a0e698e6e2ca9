//go:build linux && cgo

package compile

import (
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// TestCompileProgramsNotifiesExecs: with Programs every exec the filter
// lets run reaches the listener, whatever else the layout does, and an
// exec enforce refuses stays refused in the kernel.
func TestCompileProgramsNotifiesExecs(t *testing.T) {
	native := scmp.Native()
	without := nativeProfile(t)
	with := loadText(t, "version: 1\nagent: test\nsyscalls:\n  "+native.String()+":\n    - close\n    - execve\n    - getppid\n")
	cases := []struct {
		name    string
		p       *baseline.Profile
		mode    baseline.Mode
		opts    Options
		execve  uint32
		getppid uint32
	}{
		{"record", nil, baseline.ModeRecord, Options{}, retNotify, retLog},
		{"record, arg-blind", nil, baseline.ModeRecord, Options{ArgBlind: true}, retNotify, retLog},
		{"record, notify backend", nil, baseline.ModeRecord, Options{Notify: true}, retNotify, retNotify},
		{"check, allowed", with, baseline.ModeCheck, Options{}, retNotify, retAllow},
		{"check, allowed, arg-blind", with, baseline.ModeCheck, Options{ArgBlind: true}, retNotify, retAllow},
		{"check, allowed, notify backend", with, baseline.ModeCheck, Options{Notify: true}, retNotify, retAllow},
		{"check, not allowed", without, baseline.ModeCheck, Options{}, retNotify, retAllow},
		{"check, not allowed, arg-blind", without, baseline.ModeCheck, Options{ArgBlind: true}, retNotify, retAllow},
		{"enforce, allowed", with, baseline.ModeEnforce, Options{}, retNotify, retAllow},
		{"enforce, allowed, arg-blind", with, baseline.ModeEnforce, Options{ArgBlind: true}, retNotify, retAllow},
		{"enforce, not allowed", without, baseline.ModeEnforce, Options{}, retEPERM, retAllow},
		{"enforce, not allowed, arg-blind", without, baseline.ModeEnforce, Options{ArgBlind: true}, retEPERM, retAllow},
		{"enforce kill, not allowed", without, baseline.ModeEnforce, Options{Action: baseline.ActionKill, ArgBlind: true}, retKill, retAllow},
	}
	for _, c := range cases {
		c.opts.Programs = true
		f, err := Compile(c.p, c.mode, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !f.Notifies {
			t.Errorf("%s: Notifies = false: the exec notifications need the run's listener", c.name)
		}
		for _, exec := range []string{"execve", "execveat"} {
			want := c.execve
			if exec == "execveat" && c.mode == baseline.ModeEnforce {
				want = retEPERM // not in either profile
				if c.opts.Action == baseline.ActionKill {
					want = retKill
				}
			}
			if got := runFilter(t, f, native, number(t, native, exec)); got != want {
				t.Errorf("%s: %s -> %#x, want %#x", c.name, exec, got, want)
			}
		}
		if got := runFilter(t, f, native, number(t, native, "getppid")); got != c.getppid {
			t.Errorf("%s: getppid -> %#x, want %#x", c.name, got, c.getppid)
		}
		// Without Programs the layout is what it was: an allowed execve
		// is allowed in the kernel.
		c.opts.Programs = false
		if c.p == with && c.mode == baseline.ModeCheck {
			f, err := Compile(c.p, c.mode, c.opts)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got := runFilter(t, f, native, number(t, native, "execve")); got != retAllow {
				t.Errorf("%s without programs: execve -> %#x, want allow", c.name, got)
			}
		}
	}
}

func loadText(t testing.TB, text string) *baseline.Profile {
	t.Helper()
	p, err := baseline.Load(writeFile(t, t.TempDir(), "agent.yaml", text))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

// TestCompileProgramsNotifiesExitGroup: with Programs a program's
// exit_group reaches the listener even where the baseline allows it, so
// an exec's program is verified before it can be reaped; without
// Programs it stays allowed in the kernel.
func TestCompileProgramsNotifiesExitGroup(t *testing.T) {
	native := scmp.Native()
	p := loadText(t, "version: 1\nagent: test\nsyscalls:\n  "+native.String()+":\n    - execve\n    - exit_group\n    - getppid\n")
	for _, c := range []struct {
		name     string
		opts     Options
		mode     baseline.Mode
		expected uint32
	}{
		{"check, audit layout", Options{Programs: true}, baseline.ModeCheck, retNotify},
		{"check, notify backend", Options{Programs: true, Notify: true}, baseline.ModeCheck, retNotify},
		{"enforce, allowed", Options{Programs: true}, baseline.ModeEnforce, retNotify},
		{"check, no programs", Options{}, baseline.ModeCheck, retAllow},
	} {
		f, err := Compile(p, c.mode, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := runFilter(t, f, native, number(t, native, "exit_group")); got != c.expected {
			t.Errorf("%s: exit_group -> %#x, want %#x", c.name, got, c.expected)
		}
	}
}
