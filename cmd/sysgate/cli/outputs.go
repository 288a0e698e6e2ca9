//go:build linux

package cli

import (
	"os"

	"github.com/sysgate/sysgate/internal/safefile"
)

// agentIdentity is who the agent runs as, when that is not sysgate's own
// uid (--user, or SUDO_UID under sudo).
type agentIdentity struct {
	uid, gid uint32
}

// checkOutputs refuses, with exit 2, files sysgate is to write that the
// agent could tamper with: a symlink at the path (before the run, or
// planted during it), or, unless --force, a directory the agent's user
// can write. Nothing is checked when the agent runs as sysgate's own uid:
// it can write whatever sysgate can. Empty paths are skipped.
func (c *Command) checkOutputs(f *runFlags, paths ...string) (int, bool) {
	if f.agentUser == nil || f.agentUser.uid == uint32(os.Geteuid()) {
		return ExitOK, true
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		err := safefile.CheckLink(p)
		if err == nil && !f.force {
			err = safefile.CheckWriter(p, f.agentUser.uid, f.agentUser.gid)
		}
		if err != nil {
			return c.errorf(ExitUsage, "refusing to write %v", err), false
		}
	}
	return ExitOK, true
}
