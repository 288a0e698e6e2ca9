package touch

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

var measure = flag.Bool("measure", false, "measure what a run's rules cost unrelated processes (TestRuleCost)")

// syscallLoop is the child of TestRuleCost: a process unrelated to the
// rules (another auid) that makes n calls and prints ns per call.
func syscallLoop(spec string) {
	kind, count, _ := strings.Cut(spec, ":")
	n, _ := strconv.Atoi(count)
	path, _ := unix.BytePtrFromString("/dev/null")
	start := time.Now()
	for range n {
		switch kind {
		case "getppid":
			syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
		case "openat":
			fd, _, _ := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(0xffffffffffffff9c), uintptr(unsafePointer(path)), 0, 0, 0, 0)
			syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
		}
	}
	fmt.Printf("%.1f\n", float64(time.Since(start).Nanoseconds())/float64(n))
	os.Exit(0)
}

func runLoop(t *testing.T, kind string, n int) float64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=loop:%s:%d", childEnv, kind, n))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRuleCost measures, in interleaved rounds, a getppid loop and an
// openat+close loop in a process forked while a run's rules exist
// (audit enabled, rules for another auid) against one forked without.
// It reports; it asserts nothing about speed.
func TestRuleCost(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	testutil.RequireAudit(t)
	auditctltest.HoldExclusive(t)
	const rounds = 9
	loops := map[string]int{"getppid": 2_000_000, "openat": 200_000}
	for _, kind := range []string{"getppid", "openat"} {
		var off, on []float64
		for range rounds {
			off = append(off, runLoop(t, kind, loops[kind]))
			in, err := Install(NewAUID(), Files|Network, Native)
			if err != nil {
				t.Fatal(err)
			}
			on = append(on, runLoop(t, kind, loops[kind]))
			if err := in.Remove(); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(off)
		slices.Sort(on)
		t.Logf("%s: without rules median %.1f ns/call (min %.1f), with rules median %.1f (min %.1f): %.2fx median, %.2fx min",
			kind, off[rounds/2], off[0], on[rounds/2], on[0], on[rounds/2]/off[rounds/2], on[0]/off[0])
	}
}

func unsafePointer(p *byte) unsafe.Pointer { return unsafe.Pointer(p) }
