// Package safefile writes the files sysgate produces (results, baselines,
// observations, OCI profiles) without following a symbolic link anyone
// planted at the target, and tells whether another user could tamper with
// a target's directory.
//
// WriteFile opens the target's directory once and works relative to that
// descriptor: a fresh temporary file created with O_CREAT|O_EXCL|O_NOFOLLOW,
// written and fsynced, then renameat into place. A rename replaces a
// planted symlink (or hard link) instead of writing through it, and a
// crash leaves the old file or the new one, never a truncated one.
// OpenAppend is for a file other programs append to too ($GITHUB_OUTPUT):
// it opens the name relative to the directory with O_APPEND|O_NOFOLLOW.
//
// It needs no privilege; it is only as safe as the directory path itself:
// symlinks in the components above the target are followed, which
// CheckWriter's refusal (the directory must not be writable by the agent's
// user) covers for the directory that holds the target.
package safefile
