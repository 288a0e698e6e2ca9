//go:build !(linux && cgo)

package kernel

import (
	"fmt"
	"runtime"
)

// This build has no launcher (spawn*.c): Spawn and the namespace probes
// fail with ErrNotSupported.
func notSupported(what string) error {
	return fmt.Errorf("%s: %w (this sysgate is built for %s/%s without cgo)", what, ErrNotSupported, runtime.GOOS, runtime.GOARCH)
}

// Spawn fails with ErrNotSupported in this build.
func Spawn(cfg *SpawnConfig) (pid, pidfd int, free func(), err error) {
	return -1, -1, nil, notSupported("spawn")
}

// ProbePidNamespace fails with ErrNotSupported in this build.
var ProbePidNamespace = func() error { return notSupported("probe PID namespace") }

// ProbeUserNamespace fails with ErrNotSupported in this build.
var ProbeUserNamespace = func() error { return notSupported("probe user namespace") }

// Err names the failed step by number: this build has no launcher that
// could have written the record.
func (s SpawnStatus) Err() error {
	return notSupported(fmt.Sprintf("spawn step %d (errno %d)", s.Step, s.Errno))
}
