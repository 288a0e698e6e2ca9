package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/internal/kernel"
)

// WithRoot runs the agent in root, a directory holding another
// distribution's tree (a Debian trixie made by scripts/rootfs.sh, say),
// as its /: the run's mount namespace pivots into it (kernel.AgentSetup.
// Root), read-only, with a fresh /tmp, the kernel's file systems and
// binds (directories of the host, each Source shown read-write at Target
// inside root: the workspace, say) bound in. The agent's command, $PATH
// and directory are its view, inside root. The environment the run is
// checked in (os, libc, runtimes, which pick the baselines' layers) is
// read from root. Needs root's privileges or the run's user namespace,
// and the run's PID namespace (WithoutPIDNamespace refuses the launch).
// Not for enforce with a files section: its Landlock rules name the
// host's paths.
func WithRoot(root string, binds ...kernel.BindFile) Option {
	return func(c *runConfig) { c.root, c.rootBinds = root, binds }
}

// rootBindArgs are binds as --bind takes them.
func rootBindArgs(binds []kernel.BindFile) []string {
	var out []string
	for _, b := range binds {
		out = append(out, b.Source+":"+b.Target)
	}
	return out
}

// ParseRootBind reads a --bind value, SOURCE:TARGET (TARGET inside the
// run's root; SOURCE alone binds it at the same path), both absolute.
func ParseRootBind(s string) (kernel.BindFile, error) {
	source, target, ok := strings.Cut(s, ":")
	if !ok {
		target = source
	}
	if !filepath.IsAbs(source) || !filepath.IsAbs(target) {
		return kernel.BindFile{}, fmt.Errorf("--bind %q: want SOURCE:TARGET, both absolute paths (TARGET inside --root)", s)
	}
	return kernel.BindFile{Source: filepath.Clean(source), Target: filepath.Clean(target)}, nil
}

// rootDir is the agent's directory in a run with a root ("" without).
func rootDir(root, dir string) string {
	if root == "" || !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Clean(dir)
}
