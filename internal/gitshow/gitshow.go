// Package gitshow reads files as a git commit has them (git cat-file),
// without checking the commit out: the base of a pull request is read
// beside the pull request's working tree, and nothing of either runs.
// It needs the git command; it reads no environment of its own (git
// reads its usual variables).
package gitshow

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoCommit is matched when the ref names no commit in the repository
// (a shallow clone that lacks the base, a typo).
var ErrNoCommit = errors.New("no such commit")

// Commit is one commit of the repository holding a working directory.
type Commit struct {
	top string // the working tree's top, symlinks resolved
	sha string
	max int64
}

// Open resolves ref in the repository that holds dir. max caps each
// file read (a baseline is small; a blob may not be).
func Open(dir, ref string, max int64) (*Commit, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return nil, fmt.Errorf("git ref %q: %w", ref, ErrNoCommit)
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("git: %s is not in a git working tree: %w", dir, err)
	}
	sha, err := git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("git ref %s: %w (fetch it first: a shallow clone lacks a pull request's base)", ref, ErrNoCommit)
	}
	return &Commit{top: strings.TrimSpace(top), sha: strings.TrimSpace(sha), max: max}, nil
}

// SHA is the commit's full hash.
func (c *Commit) SHA() string { return c.sha }

// Rel is path relative to the working tree's top, as the commit names it.
func (c *Commit) Rel(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	// The top comes resolved from git: resolve the deepest existing
	// directory of path the same way (a file may be gone from one side).
	dir, rest := abs, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			abs = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	rel, err := filepath.Rel(c.top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is outside the repository at %s", path, c.top)
	}
	return filepath.ToSlash(rel), nil
}

// Read returns path's contents at the commit. A path the commit lacks
// gives an error matching fs.ErrNotExist.
func (c *Commit) Read(path string) ([]byte, error) {
	rel, err := c.Rel(path)
	if err != nil {
		return nil, &fs.PathError{Op: "git show", Path: path, Err: err}
	}
	return c.ReadTop(rel, path)
}

// ReadTop is Read of rel, a path relative to the repository's top
// (".github/CODEOWNERS"); errors name it as shown.
func (c *Commit) ReadTop(rel, shown string) ([]byte, error) {
	path := shown
	obj := c.sha + ":" + rel
	kind, err := git(c.top, "cat-file", "-t", "--end-of-options", obj)
	if err != nil {
		return nil, &fs.PathError{Op: "git show " + c.short(), Path: path, Err: fs.ErrNotExist}
	}
	if k := strings.TrimSpace(kind); k != "blob" {
		return nil, &fs.PathError{Op: "git show " + c.short(), Path: path, Err: fmt.Errorf("a %s, not a file", k)}
	}
	size, err := git(c.top, "cat-file", "-s", "--end-of-options", obj)
	if err != nil {
		return nil, &fs.PathError{Op: "git show " + c.short(), Path: path, Err: err}
	}
	var n int64
	if _, err := fmt.Sscan(strings.TrimSpace(size), &n); err != nil || n > c.max {
		return nil, &fs.PathError{Op: "git show " + c.short(), Path: path, Err: fmt.Errorf("larger than %d bytes", c.max)}
	}
	data, err := git(c.top, "cat-file", "blob", "--end-of-options", obj)
	if err != nil {
		return nil, &fs.PathError{Op: "git show " + c.short(), Path: path, Err: err}
	}
	return []byte(data), nil
}

func (c *Commit) short() string { return c.sha[:min(12, len(c.sha))] }

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}
