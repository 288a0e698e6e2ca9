package kernel

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// BindFile is one file of AgentSetup.BindFiles: Target shows Source's
// content, read-only, in the agent's mount namespace. Both are absolute.
type BindFile struct {
	Source, Target string
}

// BindFileError is a file of BindFiles the child could not bind: Step
// says what failed ("open the source", "open the target", "bind
// read-only") and Err is the kernel's errno, so errors.Is(err,
// fs.ErrNotExist) holds for a missing file.
type BindFileError struct {
	BindFile
	Step string
	Err  error
}

func (e *BindFileError) Error() string {
	return fmt.Sprintf("bind %s read-only over %s in the agent's mount namespace: %s: %v", e.Source, e.Target, e.Step, e.Err)
}

func (e *BindFileError) Unwrap() error { return e.Err }

// ErrBindNeedsFence: Spawn refuses BindFiles with NoFence, since they
// live in the mount namespace NoFence turns off.
var ErrBindNeedsFence = errors.New("BindFiles need the agent's own mount namespace, which NoFence turns off (it needs CAP_SYS_ADMIN, or UserNamespace without privilege)")

// checkBindFiles refuses BindFiles that Spawn cannot honour, before
// anything starts: a launch that skipped one would hand the agent the
// host's file instead of the run's.
func checkBindFiles(setup *AgentSetup) error {
	if len(setup.BindFiles) == 0 {
		return nil
	}
	if setup.NoFence {
		return fmt.Errorf("spawn: %w", ErrBindNeedsFence)
	}
	for _, b := range setup.BindFiles {
		if !absolute(b.Source) || !absolute(b.Target) {
			return fmt.Errorf("spawn: BindFiles: source %q, target %q: both must be absolute paths", b.Source, b.Target)
		}
	}
	return nil
}

func absolute(path string) bool {
	return filepath.IsAbs(path) && !strings.ContainsRune(path, 0)
}
