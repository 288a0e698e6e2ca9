package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// reportsMarker marks a reports directory the gate made: it empties that
// one in every run, and refuses a directory of the user's.
const reportsMarker = ".sysgate-reports"

// reportsDir makes the reports directory ready and returns its absolute
// path: a new one, or one an earlier gate made, emptied. A directory that
// exists without the marker is the user's: refused, never removed.
func reportsDir(dir string) (string, error) {
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "", stepErrorf(ExitUsage, "reports: %s is a symbolic link: name a directory of its own for sysgate's reports", dir)
	case err == nil && !fi.IsDir():
		return "", stepErrorf(ExitUsage, "reports: %s exists and is not a directory", dir)
	case err == nil:
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", stepErrorf(ExitUsage, "reports: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, reportsMarker)); err != nil && len(entries) > 0 {
			return "", stepErrorf(ExitUsage, "reports: %s exists and is not sysgate's (no %s in it): name another directory, or remove it first", dir, reportsMarker)
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return "", stepErrorf(ExitInconclusive, "reports: %v", err)
			}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", stepErrorf(ExitUsage, "reports: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", stepErrorf(ExitUsage, "reports: %v", err)
	}
	marker := "the reports of sysgate's action: the gate empties this directory in every run\n"
	if err := os.WriteFile(filepath.Join(dir, reportsMarker), []byte(marker), 0o644); err != nil {
		return "", stepErrorf(ExitInconclusive, "reports: %v", err)
	}
	return filepath.Abs(dir)
}

// readOnlyPaths is what the agent must not write, bound read-only in its
// mount namespace (sysgate --read-only): the action's own directory, the
// sysgate binary and the tool cache, the runner's _actions (every later
// action's code), the runner's file-command directory (this step's
// GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT: predictable names) and the
// reports directory. The workspace, $HOME and $RUNNER_TEMP stay writable.
func (a *actionStep) readOnlyPaths(reports string) []string {
	actionDir := a.getenv("GITHUB_ACTION_PATH")
	temp := a.getenv("RUNNER_TEMP")
	candidates := []string{actionDir, filepath.Dir(a.self), a.getenv("RUNNER_TOOL_CACHE"), actionsDir(actionDir, temp), reports}
	if temp != "" {
		candidates = append(candidates, filepath.Join(temp, "_runner_file_commands"))
	}
	var paths []string
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(paths, r) {
			if abs, err := filepath.Abs(r); err == nil {
				paths = append(paths, abs)
			}
		}
	}
	sort.Strings(paths)
	return slices.Compact(paths)
}

// actionsDir is the runner's _actions directory: the action's own
// checkout lies at _actions/OWNER/REPO/REF; else beside RUNNER_TEMP.
func actionsDir(actionDir, runnerTemp string) string {
	if actionDir != "" {
		if up := filepath.Dir(filepath.Dir(filepath.Dir(actionDir))); filepath.Base(up) == "_actions" {
			return up
		}
	}
	if runnerTemp != "" {
		d := filepath.Join(filepath.Dir(runnerTemp), "_actions")
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return ""
}

// yamlFiles are the YAML files under dir, sorted (find -type f: no links).
func yamlFiles(dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// validateBaselines validates what can be validated before anything
// runs: syntax, unknown syscalls, the canonical layout, and with strict
// the unreviewed reasons a record left. Record validates nothing: it
// writes the files.
func (a *actionStep) validateBaselines(in gateInputs, sel selection) error {
	var files []string
	for _, b := range in.baselines {
		fi, err := os.Stat(b)
		switch {
		case err == nil && fi.IsDir():
			files = append(files, yamlFiles(b)...)
		case err == nil:
			files = append(files, b)
		case in.mode != "record":
			return stepErrorf(ExitUsage, "baselines: %s does not exist", b)
		}
	}
	if len(files) == 0 || in.mode == "record" {
		return nil
	}
	args := []string{"baseline", "validate"}
	strict := ""
	if in.strict {
		args, strict = append(args, "--strict"), " --strict"
	}
	args = append(append(append(append(args, sel.flags...), "--format", "github"), files...), sel.runCommand()...)
	if a.sysgate(nil, nil, args...) != ExitOK {
		return stepErrorf(ExitUsage, "baselines: validate%s failed (the annotations name the file and line; record leaves 'unreviewed' reasons a reviewer must replace)", strict)
	}
	var unformatted bytes.Buffer
	if a.sysgate(&unformatted, &unformatted, append([]string{"baseline", "fmt", "-l"}, files...)...) != ExitOK {
		return stepErrorf(ExitUsage, "baselines: not in the canonical layout: %s(sysgate baseline fmt -w FILE rewrites them)",
			strings.ReplaceAll(unformatted.String(), "\n", " "))
	}
	return nil
}

// copyTree copies what root's run directory holds into the reports.
func copyTree(from, to string) error {
	if out, err := exec.Command("cp", "-R", from+"/.", to+"/").CombinedOutput(); err != nil {
		return stepErrorf(ExitInconclusive, "copy the reports: %v: %s", err, out)
	}
	return nil
}

// hasFiles: dir holds a regular file other than skip (at any depth) whose
// name matches pattern.
func hasFiles(dir, pattern, skip string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != skip {
			if ok, _ := filepath.Match(pattern, d.Name()); ok {
				found = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}
