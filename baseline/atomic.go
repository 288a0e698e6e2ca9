package baseline

import "github.com/sysgate/sysgate/internal/safefile"

// WriteFileAtomic replaces path with data through a temporary file in the
// same directory and a rename, keeping an existing file's permissions,
// never following a symlink at path (safefile.WriteFile). A crash leaves
// either the old file or the new one, never a truncated baseline.
func WriteFileAtomic(path string, data []byte) error {
	return safefile.WriteFile(path, data, 0o644)
}
