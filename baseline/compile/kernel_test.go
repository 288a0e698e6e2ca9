//go:build linux && cgo

package compile

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
)

// filterChildEnv marks a re-exec of the test binary that loads a compiled
// filter into itself (see filterChild).
const filterChildEnv = "SYSGATE_BASELINE_FILTER_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(filterChildEnv); path != "" {
		os.Exit(filterChild(path))
	}
	os.Exit(m.Run())
}

// filterChild compiles the enforce filter of the baseline at path, loads
// it into its own thread with a raw seccomp(2) (as the harness does, and
// without TSYNC so the rest of the Go runtime stays unfiltered), and
// reports what getpid (allowed) and getppid (not allowed) return.
func filterChild(path string) int {
	p, err := baseline.Load(path)
	if err != nil {
		fmt.Println("load:", err)
		return 2
	}
	f, err := Compile(p, baseline.ModeEnforce, Options{})
	if err != nil {
		fmt.Println("compile:", err)
		return 2
	}
	runtime.LockOSThread() // never unlocked: the thread dies with the process
	if err := kernel.SetNoNewPrivs(); err != nil {
		fmt.Println("no_new_privs:", err)
		return 2
	}
	if err := kernel.LoadSeccompFilter(f.Program, 0); err != nil {
		fmt.Println(err)
		return 2
	}
	pid := unix.Getpid()
	fmt.Printf("getpid=%d getppid=%v\n", pid, kernel.Getppid(0))
	return 0
}

// TestEnforceFilterInKernel loads a compiled enforce filter into a real
// process: the kernel must accept the program, allow the baseline and
// refuse the rest with EPERM. It needs no privileges (no_new_privs is
// enough) and ERRNO actions emit no audit records.
func TestEnforceFilterInKernel(t *testing.T) {
	native := scmp.Native()
	var lines []string
	for _, name := range scmp.Names(native) {
		switch {
		case name == "getppid":
		case risk.Of(name).Risky():
			lines = append(lines, "    - "+name+": the Go runtime of the test child may need anything")
		default:
			lines = append(lines, "    - "+name)
		}
	}
	path := writeFile(t, t.TempDir(), "all-but-getppid.yaml", "version: 1\nsyscalls:\n  "+native.String()+":\n"+strings.Join(lines, "\n")+"\n")

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), filterChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := fmt.Sprintf("getpid=%d getppid=getppid: operation not permitted\n", cmd.Process.Pid)
	if string(out) != want {
		t.Errorf("child reported %q, want %q", out, want)
	}
}
