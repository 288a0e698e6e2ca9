package harness

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// allowAll is a filter that logs nothing, so the benchmarks measure the
// launch path and not the audit subsystem.
var allowAll = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}

// BenchmarkLaunchBare is the reference: fork+exec+wait of /bin/true.
func BenchmarkLaunchBare(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchShim is the same through the re-exec shim: new audit
// session, capability drop, no_new_privs, filter, exec, wait.
func BenchmarkLaunchShim(b *testing.B) {
	testutil.RequireRoot(b)
	cfg := &shimConfig{Path: "/bin/true", Args: []string{"/bin/true"}, Env: os.Environ(), Program: programBytes(allowAll)}
	for b.Loop() {
		s, err := startShim(cfg, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.release(); err != nil {
			b.Fatal(err)
		}
		if err := s.cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		s.closePidfd()
	}
}
