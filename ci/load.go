package ci

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
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
	HostArch scmp.Arch
}

// Load reads Ginkgo JSON reports and harness Result JSON files (told apart
// by their content: a report is an array) into one Report.
func Load(opts LoadOptions, paths ...string) (*Report, error) {
	r := &Report{Root: opts.Root}
	for _, path := range paths {
		data, err := baseline.ReadInput(path)
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

// addResult decodes one Result's JSON. dir is the directory relative
// baseline paths in it are relative to ("" = the current directory).
// It returns the added run.
func (r *Report) addResult(data []byte, spec, dir string, opts LoadOptions) (*Run, error) {
	var res verdict.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("decode result: %w", err)
	}
	if res.Agent == "" && res.Verdict == "" {
		return nil, errors.New("not a sysgate result (no agent, no verdict)")
	}
	return r.addRun(&res, spec, dir, opts.HostArch), nil
}

// RepoPath makes a baseline path relative to root, so GitHub can place an
// annotation on it. A path outside root is left absolute.
func RepoPath(root, base, path string) string {
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
