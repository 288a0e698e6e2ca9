package ci

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/harness"
)

// ErrNoResults is returned when the inputs hold no sysgate result and no
// failed spec: rendering an empty report would pass a gate that ran nothing.
var ErrNoResults = errors.New("no sysgate results in the input")

// LoadOptions says how to read result files.
type LoadOptions struct {
	// Root is the repository root: baseline paths are made relative to
	// it, which is what GitHub annotations need. "" keeps paths as they are.
	Root string
	// HostArch names the arch of runs whose result does not say it.
	HostArch string
}

// Load reads Ginkgo JSON reports and harness Result JSON files (told apart
// by their content: a report is an array) into one Report.
func Load(opts LoadOptions, paths ...string) (*Report, error) {
	r := &Report{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("load results: %w", err)
		}
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		switch {
		case bytes.HasPrefix(trimmed, []byte("[")):
			err = r.addGinkgo(data, opts)
		case bytes.HasPrefix(trimmed, []byte("{")):
			_, err = r.addResult(data, "", "", opts)
		default:
			err = errors.New("neither a Ginkgo JSON report nor a sysgate result")
		}
		if err != nil {
			return nil, fmt.Errorf("load results %s: %w", path, err)
		}
	}
	if len(r.Runs) == 0 && len(r.Failures) == 0 {
		return nil, fmt.Errorf("load results %s: %w", strings.Join(paths, ", "), ErrNoResults)
	}
	r.sort()
	return r, nil
}

// addResult decodes one Result's JSON. base is the directory relative
// baseline paths in it are relative to ("" = the current directory).
// It returns the added run.
func (r *Report) addResult(data []byte, spec, base string, opts LoadOptions) (*Run, error) {
	var res harness.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("decode result: %w", err)
	}
	if res.Agent == "" && res.Verdict == "" {
		return nil, errors.New("not a sysgate result (no agent, no verdict)")
	}
	r.addRun(FromResult(&res, spec, opts.HostArch), opts.Root, base)
	return &r.Runs[len(r.Runs)-1], nil
}

// addRun adds a run with its baseline paths made relative to root.
func (r *Report) addRun(run Run, root, base string) {
	for i := range run.New {
		run.New[i].File = repoPath(root, base, run.New[i].File)
	}
	for i := range run.Stale {
		run.Stale[i].File = repoPath(root, base, run.Stale[i].File)
	}
	r.Runs = append(r.Runs, run)
}

// repoPath makes a baseline path relative to root, so GitHub can place an
// annotation on it. A path outside root is left absolute.
func repoPath(root, base, path string) string {
	if path == "" || root == "" {
		return path
	}
	if !filepath.IsAbs(path) && base != "" {
		path = filepath.Join(base, path)
	}
	absRoot, err1 := filepath.Abs(root)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	rel, err := filepath.Rel(absRoot, absPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return absPath
	}
	return filepath.ToSlash(rel)
}

// FindRoot returns the nearest directory at or above dir that holds .git,
// or dir itself when there is none.
func FindRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return abs
		}
	}
}
