package actionrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The actions/cache stand-in keeps each entry in a directory of CacheDir:
// meta.json (key, paths) and data/<i>, a copy of the i-th path. As on
// GitHub, an entry is found by its key and by the paths it holds (the
// cache's "version"), is never overwritten, and the full action saves in
// its post step only when the job succeeded and the key was not hit.

type cacheMeta struct {
	Key     string   `json:"key"`
	Version string   `json:"version"`
	Paths   []string `json:"paths"`
}

// cachePaths reads path: (one a line) into absolute paths.
func (j *job) cachePaths(in usesCall) ([]string, error) {
	var paths []string
	for _, line := range strings.Split(in.with["path"], "\n") {
		p := strings.TrimSpace(line)
		if p == "" {
			continue
		}
		if strings.ContainsAny(p, "*?[!") {
			return nil, unsupported("the cache path %q (globs and exclusions)", p)
		}
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(envValue(in.env, "HOME"), p[1:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(j.cfg.Workspace, p)
		}
		paths = append(paths, filepath.Clean(p))
	}
	return paths, nil
}

// The runner's directories are the same paths in every job on GitHub
// (/opt/hostedtoolcache, /home/runner/work/...), and a cache entry is
// found by the paths it holds. A dry run's are new directories each time:
// entries record them by name, so a later dry run finds what an earlier
// one saved, in its own directories.
func (j *job) runnerDirs() []KeyValue {
	return []KeyValue{
		{"$RUNNER_TOOL_CACHE", j.cfg.ToolCache},
		{"$RUNNER_TEMP", j.temp},
		{"$GITHUB_WORKSPACE", j.cfg.Workspace},
	}
}

// portable writes p relative to the runner directory holding it.
func (j *job) portable(p string) string {
	for _, d := range j.runnerDirs() {
		if p == d.Value || strings.HasPrefix(p, d.Value+string(filepath.Separator)) {
			return d.Key + p[len(d.Value):]
		}
	}
	return p
}

// local is portable's inverse: p in this dry run's directories.
func (j *job) local(p string) string {
	for _, d := range j.runnerDirs() {
		if p == d.Key || strings.HasPrefix(p, d.Key+string(filepath.Separator)) {
			return d.Value + p[len(d.Key):]
		}
	}
	return p
}

func (j *job) cacheVersion(paths []string) string {
	portable := make([]string, len(paths))
	for i, p := range paths {
		portable[i] = j.portable(p)
	}
	sum := sha256.Sum256([]byte(strings.Join(portable, "\n")))
	return hex.EncodeToString(sum[:8])
}

func (j *job) cacheEntryDir(key, version string) string {
	sum := sha256.Sum256([]byte(version + "\x00" + key))
	return filepath.Join(j.cfg.CacheDir, hex.EncodeToString(sum[:12]))
}

func checkCacheKey(key string) error {
	if len(key) > 512 {
		return fmt.Errorf("key is %d characters, more than 512", len(key))
	}
	if strings.Contains(key, ",") {
		return fmt.Errorf("key %q contains a comma", key)
	}
	return nil
}

func readCacheMeta(dir string) (cacheMeta, error) {
	var m cacheMeta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// cacheRestore restores the entry for key, else the newest whose key
// starts with one of restoreKeys (in order). It returns the key restored
// ("" for a miss).
func (j *job) cacheRestore(in usesCall, res *StepResult, lookupOnly bool) (matched string, paths []string, err error) {
	if j.cfg.CacheDir == "" {
		return "", nil, fmt.Errorf("no cache directory was given to the dry run")
	}
	if paths, err = j.cachePaths(in); err != nil {
		return "", nil, err
	}
	key := in.with["key"]
	if err := checkCacheKey(key); err != nil {
		j.stepFailed(res, 1, "actions/cache: "+err.Error())
		return "", paths, nil
	}
	version := j.cacheVersion(paths)
	dir := j.cacheEntryDir(key, version)
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err != nil {
		dir = ""
		for _, prefix := range strings.Split(in.with["restore-keys"], "\n") {
			if prefix = strings.TrimSpace(prefix); prefix == "" {
				continue
			}
			if dir, err = j.newestCacheEntry(prefix, version); err != nil {
				return "", paths, err
			}
			if dir != "" {
				break
			}
		}
	}
	if dir == "" {
		j.note(res, "actions/cache: cache not found for key %s (in %s)", key, j.cfg.CacheDir)
		return "", paths, nil
	}
	meta, err := readCacheMeta(dir)
	if err != nil {
		return "", paths, err
	}
	if lookupOnly {
		j.note(res, "actions/cache: cache found for key %s (lookup only: not restored)", meta.Key)
		return meta.Key, paths, nil
	}
	for i, p := range meta.Paths {
		p = j.local(p)
		src := filepath.Join(dir, "data", fmt.Sprint(i))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := copyTree(src, p); err != nil {
			return "", paths, fmt.Errorf("restore %s: %w", p, err)
		}
	}
	j.note(res, "actions/cache: cache restored from key %s (%s)", meta.Key, dir)
	return meta.Key, paths, nil
}

func (j *job) newestCacheEntry(prefix, version string) (string, error) {
	entries, err := os.ReadDir(j.cfg.CacheDir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	best, bestTime := "", int64(0)
	for _, e := range entries {
		dir := filepath.Join(j.cfg.CacheDir, e.Name())
		m, err := readCacheMeta(dir)
		if err != nil || m.Version != version || !strings.HasPrefix(m.Key, prefix) {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, "meta.json"))
		if err == nil && fi.ModTime().UnixNano() > bestTime {
			best, bestTime = dir, fi.ModTime().UnixNano()
		}
	}
	return best, nil
}

// cacheSave stores paths under key unless an entry exists or no path
// does: both are warnings on GitHub, never a failed step.
func (j *job) cacheSave(key string, paths []string, res *StepResult) error {
	if j.cfg.CacheDir == "" {
		return fmt.Errorf("no cache directory was given to the dry run")
	}
	if err := checkCacheKey(key); err != nil {
		j.stepFailed(res, 1, "actions/cache: "+err.Error())
		return nil
	}
	version := j.cacheVersion(paths)
	dir := j.cacheEntryDir(key, version)
	if _, err := os.Stat(dir); err == nil {
		j.warn(res, fmt.Sprintf("actions/cache: failed to save: a cache entry for key %s exists (entries are never overwritten)", key))
		return nil
	}
	found := false
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			found = true
		}
	}
	if !found {
		j.warn(res, "actions/cache: path validation error: path(s) specified in the action for caching do(es) not exist, hence no cache is being saved")
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
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for i, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := copyTree(p, filepath.Join(tmp, "data", fmt.Sprint(i))); err != nil {
			return fmt.Errorf("save %s: %w", p, err)
		}
	}
	portable := make([]string, len(paths))
	for i, p := range paths {
		portable[i] = j.portable(p)
	}
	meta, err := json.Marshal(cacheMeta{Key: key, Version: version, Paths: portable})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), meta, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
			j.warn(res, fmt.Sprintf("actions/cache: failed to save: another job saved key %s first", key))
			return nil
		}
		return err
	}
	j.note(res, "actions/cache: cache saved with key %s (%s)", key, dir)
	return nil
}

func (j *job) cacheRestoreOutputs(in usesCall, res *StepResult, matched string) {
	if matched != "" {
		res.Outputs["cache-hit"] = fmt.Sprint(matched == in.with["key"])
	}
}

// cacheAction is actions/cache: restore now; save in the post step when
// the job succeeded and the key was not hit exactly.
func (j *job) cacheAction(_ context.Context, in usesCall, res *StepResult) error {
	matched, paths, err := j.cacheRestore(in, res, in.with["lookup-only"] == "true")
	if err != nil || res.Outcome == Failure {
		return err
	}
	j.cacheRestoreOutputs(in, res, matched)
	if matched == "" && in.with["fail-on-cache-miss"] == "true" {
		j.stepFailed(res, 1, "actions/cache: failed to restore cache entry: exiting as fail-on-cache-miss is set; input key: "+in.with["key"])
		return nil
	}
	key := in.with["key"]
	if matched == key {
		return nil
	}
	post := StepResult{Name: "Post " + res.Name, Line: res.Line, ID: ""}
	j.posts = append(j.posts, func() {
		post.Index = len(j.result.Steps) + 1
		// post-if: success(), evaluated when the job ends.
		if j.failed {
			post.Outcome, post.Conclusion = Skipped, Skipped
			post.Note = "post-if: success(): the job failed, so the cache is not saved"
			j.logf("── %s: skipped (%s)", post.Name, post.Note)
			j.result.Steps = append(j.result.Steps, post)
			return
		}
		j.logf("── %s", post.Name)
		post.Outcome = Success
		if err := j.cacheSave(key, paths, &post); err != nil {
			j.stepFailed(&post, 1, "actions/cache: "+err.Error())
		}
		post.Conclusion = post.Outcome
		j.result.Steps = append(j.result.Steps, post)
	})
	return nil
}

func (j *job) cacheRestoreAction(_ context.Context, in usesCall, res *StepResult) error {
	matched, _, err := j.cacheRestore(in, res, in.with["lookup-only"] == "true")
	if err != nil || res.Outcome == Failure {
		return err
	}
	j.cacheRestoreOutputs(in, res, matched)
	res.Outputs["cache-primary-key"] = in.with["key"]
	res.Outputs["cache-matched-key"] = matched
	if matched == "" && in.with["fail-on-cache-miss"] == "true" {
		j.stepFailed(res, 1, "actions/cache/restore: failed to restore cache entry: exiting as fail-on-cache-miss is set; input key: "+in.with["key"])
	}
	return nil
}

func (j *job) cacheSaveAction(_ context.Context, in usesCall, res *StepResult) error {
	paths, err := j.cachePaths(in)
	if err != nil {
		return err
	}
	return j.cacheSave(in.with["key"], paths, res)
}

// copyTree copies a file, symlink or directory tree from src to dst,
// keeping modes and modification times (as tar does for the cache).
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
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_ = os.Remove(target)
			if err := os.Symlink(link, target); err != nil {
				return err
			}
			return nil
		case fi.Mode().IsRegular():
			if err := copyFile(p, target, fi.Mode().Perm()); err != nil {
				return err
			}
		default:
			return nil // sockets, devices: not cached
		}
		return os.Chtimes(target, fi.ModTime(), fi.ModTime())
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
