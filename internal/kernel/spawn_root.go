package kernel

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrRootNeeds: Spawn refuses a Root without the mount namespace or the
// PID namespace it lives in.
var ErrRootNeeds = errors.New("a Root needs the agent's own mount namespace (not NoFence) and PID namespace (PidNamespace): the host's /proc would lead out of it")

// checkRoot refuses a Root that Spawn cannot honour, before anything
// starts.
func checkRoot(setup *AgentSetup) error {
	if setup.Root == "" {
		if len(setup.RootBinds) > 0 {
			return fmt.Errorf("spawn: RootBinds without a Root")
		}
		return nil
	}
	if !absolute(setup.Root) || filepath.Clean(setup.Root) == "/" {
		return fmt.Errorf("spawn: Root %q: must be an absolute path other than /", setup.Root)
	}
	if setup.NoFence || !setup.PidNamespace {
		return fmt.Errorf("spawn: Root %s: %w", setup.Root, ErrRootNeeds)
	}
	for _, b := range setup.RootBinds {
		if !absolute(b.Source) || !absolute(b.Target) {
			return fmt.Errorf("spawn: RootBinds: source %q, target %q: both must be absolute paths", b.Source, b.Target)
		}
	}
	return nil
}

// inRoot is path (absolute, as the agent sees it) as the child sees it
// before it pivots into root.
func inRoot(root, path string) string {
	if root == "" {
		return path
	}
	return filepath.Join(root, path)
}

// rootBindPairs are the source, target pairs the child binds into root:
// the kernel's file systems first (as the fence left them), then the
// run's own directories.
func rootBindPairs(root string, binds []BindFile) []string {
	pairs := []string{"/proc", inRoot(root, "/proc"), "/dev", inRoot(root, "/dev"), "/sys", inRoot(root, "/sys")}
	for _, b := range binds {
		pairs = append(pairs, b.Source, inRoot(root, b.Target))
	}
	return pairs
}
