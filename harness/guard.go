package harness

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
)

// BaselineGuard protects the baselines of a whole gate, not only a run's
// own: every run of a CLI process, or of a test suite, may check another
// agent against files a run before it could have written. Without it, an
// agent writes a group into a sibling agent's baseline, and that agent's
// next run in the same job is clean.
//
// NewBaselineGuard hashes (sha256) every baseline file under its paths
// when it is made, before the gate's first run. Every run given it
// (WithBaselineGuard) binds those paths read-only in the agent's mount
// namespace, and afterwards compares the files again: a file that changed
// since, appeared or went away fails the run (Result.ChangedBaselines),
// and every later run of the gate as well.
type BaselineGuard struct {
	roots  []string            // absolute; bound read-only in every run
	dirs   []string            // the roots that are directories: new files there count
	hashes map[string][32]byte // every baseline file under roots, by absolute path
}

// NewBaselineGuard takes the gate's baseline paths: a directory stands for
// every baseline file (*.yaml, *.yml) below it; a file for itself and
// everything it extends, with the directory each layered extends entry
// picks its layers under (baseline.Snapshot.LayerDirs). A path that does
// not exist is an error: a guard on nothing would pass for protection.
func NewBaselineGuard(paths ...string) (*BaselineGuard, error) {
	g := &BaselineGuard{hashes: map[string][32]byte{}}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("baseline guard %s: %w", p, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("baseline guard: %w", err)
		}
		if fi.IsDir() {
			g.addDir(abs)
			continue
		}
		stack := baseline.SnapshotStack(abs)
		for _, f := range stack.Paths() {
			if _, err := os.Stat(f); err == nil {
				g.addFile(f)
			}
		}
		for _, d := range stack.LayerDirs() {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				g.addDir(d)
			}
		}
	}
	for _, f := range g.files() {
		sum, err := hashFile(f)
		if err != nil {
			return nil, fmt.Errorf("baseline guard: %w", err)
		}
		g.hashes[f] = sum
	}
	slices.Sort(g.roots)
	g.roots = slices.Compact(g.roots)
	return g, nil
}

func (g *BaselineGuard) addFile(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	g.roots = append(g.roots, abs)
	g.hashes[abs] = [32]byte{}
}

func (g *BaselineGuard) addDir(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	g.roots, g.dirs = append(g.roots, abs), append(g.dirs, abs)
}

// files lists the baseline files the guard covers now: those it hashed
// and those under its directories, sorted.
func (g *BaselineGuard) files() []string {
	var out []string
	for f := range g.hashes {
		out = append(out, f)
	}
	for _, d := range g.dirs {
		_ = filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && isBaselineName(path) {
				out = append(out, path)
			}
			return nil
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isBaselineName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// hashFile hashes a baseline file as the loader reads it (a regular file
// of bounded size): a FIFO or device in its place cannot hang the guard.
func hashFile(path string) ([32]byte, error) {
	data, err := baseline.ReadInput(path)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(data), nil
}

// Paths are what every run binds read-only: the guard's directories and
// files, absolute and sorted.
func (g *BaselineGuard) Paths() []string {
	if g == nil {
		return nil
	}
	return slices.Clone(g.roots)
}

// Changed lists the baseline files whose bytes differ from the guard's
// hashes (sorted): changed, removed, no longer readable, or new under one
// of its directories.
func (g *BaselineGuard) Changed() []string {
	if g == nil {
		return nil
	}
	var changed []string
	for _, f := range g.files() {
		was, known := g.hashes[f]
		sum, err := hashFile(f)
		if !known || err != nil || sum != was {
			changed = append(changed, f)
		}
	}
	return changed
}

// WithBaselineGuard makes the run one of g's gate: g's paths are bound
// read-only for the agent, and a baseline file under them that changed
// since g was made fails the run (Result.ChangedBaselines). A nil g is
// ignored.
func WithBaselineGuard(g *BaselineGuard) Option {
	return func(c *runConfig) {
		if g != nil {
			c.guards = append(c.guards, g)
		}
	}
}

// guardedChanges runs Changed for every guard, each file once, leaving
// out the files the run already reports as modified by its own agent.
func guardedChanges(guards []*BaselineGuard, modified []string) []string {
	own := map[string]bool{}
	for _, f := range modified {
		if abs, err := filepath.Abs(f); err == nil {
			own[abs] = true
		}
	}
	var out []string
	for _, g := range guards {
		for _, f := range g.Changed() {
			if !slices.Contains(out, f) && !own[f] {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}
