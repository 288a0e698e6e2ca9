package actionrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The stand-in of actions/cache/restore and actions/cache/save keeps each
// entry, a copy of the one path it caches, in a directory of CacheDir
// named by the key and the path (the cache's "version": an entry is found
// by both, as on GitHub). Entries are never overwritten.

// cachePath reads the path input: one file or directory.
func (j *job) cachePath(in usesCall) (string, error) {
	p := strings.TrimSpace(in.with["path"])
	if strings.ContainsAny(p, "\n*?[!~") {
		return "", unsupported("the cache path %q (more than one path, globs, exclusions, ~)", p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(j.cfg.Workspace, p)
	}
	return filepath.Clean(p), nil
}

// cacheEntry is the entry's directory for key and path, or a failed step
// for a key GitHub refuses ("" then).
func (j *job) cacheEntry(in usesCall, res *StepResult) (entry, path string, err error) {
	if path, err = j.cachePath(in); err != nil {
		return "", "", err
	}
	if j.cfg.CacheDir == "" {
		return "", "", fmt.Errorf("no cache directory was given to the dry run")
	}
	key := in.with["key"]
	switch {
	case len(key) > 512:
		j.stepFailed(res, 1, fmt.Sprintf("actions/cache: key is %d characters, more than 512", len(key)))
		return "", "", nil
	case strings.Contains(key, ","):
		j.stepFailed(res, 1, fmt.Sprintf("actions/cache: key %q contains a comma", key))
		return "", "", nil
	}
	sum := sha256.Sum256([]byte(key + "\x00" + j.portable(path)))
	return filepath.Join(j.cfg.CacheDir, hex.EncodeToString(sum[:12])), path, nil
}

// portable writes p relative to the runner directory holding it. The
// runner's directories are the same paths in every job on GitHub
// (/opt/hostedtoolcache, /home/runner/work/...); a dry run's are new
// directories each time, so an entry is found by the path's place in them.
func (j *job) portable(p string) string {
	for _, d := range []KeyValue{
		{"$RUNNER_TOOL_CACHE", j.cfg.ToolCache},
		{"$RUNNER_TEMP", j.temp},
		{"$GITHUB_WORKSPACE", j.cfg.Workspace},
	} {
		if p == d.Value || strings.HasPrefix(p, d.Value+string(filepath.Separator)) {
			return d.Key + p[len(d.Value):]
		}
	}
	return p
}

// cacheRestore is actions/cache/restore: the entry's copy back into the
// path, and cache-hit=true; a miss leaves cache-hit unset.
func (j *job) cacheRestore(_ context.Context, in usesCall, res *StepResult) error {
	entry, path, err := j.cacheEntry(in, res)
	if err != nil || entry == "" {
		return err
	}
	if _, err := os.Stat(entry); err != nil {
		j.note(res, "actions/cache/restore: cache not found for key %s (in %s)", in.with["key"], j.cfg.CacheDir)
		return nil
	}
	if err := copyTree(entry, path); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	res.Outputs["cache-hit"] = "true"
	j.note(res, "actions/cache/restore: cache restored from key %s (%s)", in.with["key"], entry)
	return nil
}

// cacheSave is actions/cache/save: a copy of the path under the key,
// unless an entry exists or the path does not: both are warnings on
// GitHub, never a failed step.
func (j *job) cacheSave(_ context.Context, in usesCall, res *StepResult) error {
	entry, path, err := j.cacheEntry(in, res)
	if err != nil || entry == "" {
		return err
	}
	if _, err := os.Stat(entry); err == nil {
		j.warn(res, fmt.Sprintf("actions/cache/save: failed to save: a cache entry for key %s exists (entries are never overwritten)", in.with["key"]))
		return nil
	}
	if _, err := os.Lstat(path); err != nil {
		j.warn(res, "actions/cache/save: path validation error: path(s) specified in the action for caching do(es) not exist, hence no cache is being saved")
		return nil
	}
	if err := os.MkdirAll(j.cfg.CacheDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(j.cfg.CacheDir, ".save-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(path, filepath.Join(tmp, "data")); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	// The entry is the copy itself: renamed into place whole, or not at all.
	if err := os.Rename(filepath.Join(tmp, "data"), entry); err != nil {
		return err
	}
	j.note(res, "actions/cache/save: cache saved with key %s (%s)", in.with["key"], entry)
	return nil
}

// copyTree copies a file or directory tree from src to dst, keeping
// modes and modification times (as tar does for the cache).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			// Files written into it change its time: leave it.
			return os.MkdirAll(target, fi.Mode().Perm()|0o700)
		case fi.Mode().IsRegular():
			if err := copyFile(p, target, fi.Mode().Perm()); err != nil {
				return err
			}
			return os.Chtimes(target, fi.ModTime(), fi.ModTime())
		}
		return unsupported("caching %s (only files and directories)", p)
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	_ = os.Remove(dst) // a running binary cannot be opened for writing
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, cerr := io.Copy(out, in)
	return errors.Join(cerr, out.Close(), os.Chmod(dst, perm))
}
