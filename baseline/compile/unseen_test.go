//go:build linux && cgo

package compile

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

const (
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	listener  = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
)

func TestCompileRefusesChannelsTheFilterCannotSee(t *testing.T) {
	native := scmp.Native()
	// The baseline lists io_uring and seccomp as plain syscalls: that does
	// not open a ring, nor a listener.
	path := writeFile(t, t.TempDir(), "agent.yaml", "version: 1\nagent: test\nsyscalls:\n  "+native.String()+
		":\n    - getppid\n    - io_uring_enter: r\n    - io_uring_setup: r\n    - seccomp: own filters without a listener\n")
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings()) != 2 {
		t.Errorf("want a warning per listed io_uring call, got %v", p.Warnings())
	}
	seccompNr := number(t, native, "seccomp")
	filterOp := uint64(unix.SECCOMP_SET_MODE_FILTER)
	for _, c := range []struct {
		mode     baseline.Mode
		opts     Options
		listened uint32 // seccomp(SET_MODE_FILTER, NEW_LISTENER)
		plain    uint32 // seccomp(SET_MODE_FILTER, TSYNC|LOG)
	}{
		{baseline.ModeRecord, Options{ArgBlind: true}, retEPERM, retLog},
		// With argument classes, what LOG had goes to the listener.
		{baseline.ModeRecord, Options{}, retEPERM, retNotify},
		{baseline.ModeCheck, Options{}, retEPERM, retAllow},
		{baseline.ModeEnforce, Options{}, retEPERM, retAllow},
		{baseline.ModeEnforce, Options{Action: baseline.ActionKill}, retEPERM, retAllow},
	} {
		f, err := Compile(p, c.mode, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		for _, name := range []string{"io_uring_setup", "io_uring_enter", "io_uring_register"} {
			if got := runFilter(t, f, native, number(t, native, name)); got != retENOSYS {
				t.Errorf("%s %+v: %s -> %#x, want ERRNO(ENOSYS)", c.mode, c.opts, name, got)
			}
		}
		for _, flags := range []uint64{listener, listener | unix.SECCOMP_FILTER_FLAG_TSYNC, 0xffffffff00000000 | listener} {
			if got := runFilterArgs(t, f, native, seccompNr, [6]uint64{filterOp, flags}); got != c.listened {
				t.Errorf("%s %+v: seccomp flags %#x -> %#x, want %#x", c.mode, c.opts, flags, got, c.listened)
			}
		}
		// Upper bits of the register are not part of the int flags.
		for _, flags := range []uint64{0, unix.SECCOMP_FILTER_FLAG_TSYNC | unix.SECCOMP_FILTER_FLAG_LOG, 0xffffffff00000000} {
			if got := runFilterArgs(t, f, native, seccompNr, [6]uint64{filterOp, flags}); got != c.plain {
				t.Errorf("%s %+v: seccomp flags %#x -> %#x, want %#x", c.mode, c.opts, flags, got, c.plain)
			}
		}
	}
}

func TestCompileSeccompOutsideTheBaseline(t *testing.T) {
	native := scmp.Native()
	p := nativeProfile(t)
	nr := number(t, native, "seccomp")
	for _, c := range []struct {
		mode            baseline.Mode
		opts            Options
		listened, plain uint32
	}{
		{baseline.ModeCheck, Options{ArgBlind: true}, retEPERM, retLog},
		{baseline.ModeEnforce, Options{ArgBlind: true}, retEPERM, retEPERM}, // both are enforce's default: a violation
		// With argument classes the listener has what the default had:
		// it logs, or refuses, the call as one outside the baseline.
		{baseline.ModeCheck, Options{}, retEPERM, retNotify},
		{baseline.ModeEnforce, Options{}, retEPERM, retNotify},
	} {
		f, err := Compile(p, c.mode, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := runFilterArgs(t, f, native, nr, [6]uint64{1, listener}); got != c.listened {
			t.Errorf("%s: listener -> %#x, want %#x", c.mode, got, c.listened)
		}
		if got := runFilterArgs(t, f, native, nr, [6]uint64{1, 0}); got != c.plain {
			t.Errorf("%s: plain -> %#x, want %#x", c.mode, got, c.plain)
		}
	}
}

func TestCompileUnmonitoredOptIn(t *testing.T) {
	native := scmp.Native()
	path := writeFile(t, t.TempDir(), "agent.yaml", "version: 1\nagent: test\nsyscalls:\n  "+native.String()+
		":\n    - getppid\nunmonitored:\n  "+native.String()+":\n    - io_uring_setup: the runtime reads files through a ring\n")
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if u := p.Unmonitored(); len(u) != 1 || u[0].Syscall != "io_uring_setup" || u[0].Line != 8 || u[0].Unseen == "" {
		t.Errorf("Unmonitored() = %+v", u)
	}
	for mode, want := range map[baseline.Mode]uint32{baseline.ModeRecord: retAllow, baseline.ModeCheck: retAllow, baseline.ModeEnforce: retAllow} {
		f, err := Compile(p, mode, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := runFilter(t, f, native, number(t, native, "io_uring_setup")); got != want {
			t.Errorf("%s: io_uring_setup -> %#x, want %#x", mode, got, want)
		}
		// Opting in to the setup call opens only it.
		if got := runFilter(t, f, native, number(t, native, "io_uring_enter")); got != retENOSYS {
			t.Errorf("%s: io_uring_enter -> %#x, want ENOSYS", mode, got)
		}
	}
}
