//go:build !(linux && cgo)

package compile

import (
	"fmt"
	"runtime"

	"github.com/sysgate/sysgate/baseline"
)

// Compile needs libseccomp: this build has no filter compiler, and says
// so with ErrNotSupported (and ErrCompile).
func Compile(p *baseline.Profile, mode baseline.Mode, opts Options) (*Filter, error) {
	return nil, fmt.Errorf("%w: %w (this sysgate is built for %s/%s without cgo)", ErrCompile, ErrNotSupported, runtime.GOOS, runtime.GOARCH)
}
