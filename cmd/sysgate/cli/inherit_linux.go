//go:build linux

package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sysgate/sysgate/harness"
	"golang.org/x/sys/unix"
)

// options validates the flags and returns the run options; the agent's
// ExtraFiles and environment additions are kept in f.
func (f *inheritFlags) options() ([]harness.Option, error) {
	var opts []harness.Option
	for _, s := range f.keepFds {
		n, err := strconv.Atoi(s)
		if err != nil || n < 3 || n >= maxKeepFd {
			return nil, fmt.Errorf("--keep-fd %s: want a descriptor number from 3 to %d (0-2 are the agent's stdio)", s, maxKeepFd-1)
		}
		if _, err := unix.FcntlInt(uintptr(n), unix.F_GETFD, 0); err != nil {
			return nil, fmt.Errorf("--keep-fd %d: sysgate was not started with that descriptor open: %v", n, err)
		}
		for len(f.extraFiles) < n-2 {
			f.extraFiles = append(f.extraFiles, nil)
		}
		f.extraFiles[n-3] = os.NewFile(uintptr(n), "fd "+s)
	}
	if f.tty && f.noTTY {
		return nil, fmt.Errorf("--tty and --no-tty: pass one")
	}
	if f.tty {
		opts = append(opts, harness.WithTTY())
	}
	if f.unisolated {
		opts = append(opts, harness.WithUnisolatedCredentials())
	}
	if err := harness.ValidatePassEnv(f.passEnv); err != nil {
		return nil, err
	}
	pass := append([]string{}, f.passEnv...)
	if f.envFile != "" {
		set, err := readEnvFile(f.envFile)
		if err != nil {
			return nil, err
		}
		f.envSet = set
		for _, kv := range set {
			// Names are identifiers: no glob metacharacters to escape.
			pass = append(pass, kv[:strings.IndexByte(kv, '=')])
		}
	}
	return append(opts, harness.WithEnvFilter(pass...)), nil
}
