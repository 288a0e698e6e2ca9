//go:build linux && cgo

package compile

import (
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// compileListener builds the run filter, installed before everything else
// in the agent's first process and carrying the run's listener. It allows
// every syscall: it exists for its listener, which hangs up once the last
// process of the run is gone.
//
// It once made the process-creation calls notify, so the harness could
// hold them while it killed the run. A held call returns EINTR when a
// signal is pending before the harness receives it, and a native fork
// never does: a shell whose SIGCHLD arrived mid-fork said "Cannot fork".
// The kill loop outruns a fork-hopping chain without holding (see
// harness/tree.go).
func compileListener(*baseline.Profile, baseline.Mode, []scmp.Arch) ([]unix.SockFilter, error) {
	return allowAll(), nil
}

// allowAll is a one-instruction program that allows every syscall.
func allowAll() []unix.SockFilter {
	return []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
}
