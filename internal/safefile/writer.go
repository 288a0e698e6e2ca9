package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ErrUnsafeTarget is matched by an *UnsafeTargetError.
var ErrUnsafeTarget = errors.New("unsafe output path")

// UnsafeTargetError is a target another user could tamper with: its
// directory is writable by that user, or the target is a symlink.
type UnsafeTargetError struct {
	Path   string
	Reason string
	Fix    string
}

func (e *UnsafeTargetError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Path, e.Reason, e.Fix)
}

func (e *UnsafeTargetError) Is(target error) bool { return target == ErrUnsafeTarget }

// CheckLink refuses a path that is a symbolic link.
func CheckLink(path string) error {
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeTargetError{Path: path, Reason: "it is a symbolic link, which sysgate neither reads nor writes through",
			Fix: "remove it, or name the file it points to"}
	}
	return nil
}

// CheckWriter refuses path when the user uid/gid (the agent's) could
// replace or rewrite it: its directory (as resolved) belongs to that user
// or grants it write permission through its group or others bits.
// Supplementary groups and ACLs are not looked at. A missing directory is
// left to the write to report.
func CheckWriter(path string, uid, gid uint32) error {
	dir := filepath.Dir(filepath.Clean(path))
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return nil
	}
	var reason string
	switch {
	case st.Uid == uid:
		reason = fmt.Sprintf("its directory %s belongs to uid %d, the agent's user", dir, uid)
	case st.Gid == gid && st.Mode&0o020 != 0:
		reason = fmt.Sprintf("its directory %s is writable by gid %d, the agent's group", dir, gid)
	case st.Mode&0o002 != 0:
		reason = fmt.Sprintf("its directory %s is writable by every user, the agent's (uid %d) too", dir, uid)
	default:
		return nil
	}
	return &UnsafeTargetError{Path: path, Reason: reason + ", so the agent could replace what sysgate writes there",
		Fix: fmt.Sprintf("write it to a directory only uid %d can write, or pass --force", os.Geteuid())}
}
