package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
)

// What the action's record mode leaves: the baseline files as they were
// before the agent ran, kept in this step's memory (the agent's user can
// write the checkout and RUNNER_TEMP, not this process), and after the
// record the updated files, a patch of them and a step-summary section
// with that patch, in the reports directory the action uploads. A
// runner's checkout goes away with the job: without these the recorded
// baseline would too.

// recordedFiles are the YAML files of the baselines input (a directory's
// *.yaml, or the file). Symbolic links are left out: record writes
// through none, and the artifact must not carry what one points at.
func recordedFiles(paths []string) []string {
	var files []string
	for _, p := range paths {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			files = append(files, yamlFiles(p)...)
		case fi.Mode().IsRegular():
			files = append(files, p)
		}
	}
	return files
}

// repoPath is file relative to the top of its git repository (else to
// the working directory): the name the patch and the artifact give it.
func repoPath(file string) string {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	root := strings.TrimSpace(string(top))
	if err != nil || root == "" {
		root, _ = os.Getwd()
	}
	rel, err := filepath.Rel(realpath(root), realpath(file))
	if err != nil {
		return file
	}
	return rel
}

// snapshotBaselines keeps each baseline file's content by its repoPath.
func snapshotBaselines(paths []string) map[string][]byte {
	before := map[string][]byte{}
	for _, f := range recordedFiles(paths) {
		if data, err := os.ReadFile(f); err == nil {
			before[repoPath(f)] = data
		}
	}
	return before
}

// writeBaselineUpdate writes into dir (the reports) the baseline files
// record changed, under baseline-update/ by their path in the repository,
// and baseline-update.patch (apply it at the repository's top with git
// apply), and appends a section with the patch to dir's summary.md and
// the step summary. code is the gate's exit code: a failed record that
// changed nothing says nothing.
func (a *actionStep) writeBaselineUpdate(dir string, code int, in gateInputs, before map[string][]byte) error {
	after := map[string]string{}
	for _, f := range recordedFiles(in.baselines) {
		after[repoPath(f)] = f
	}
	rels := make([]string, 0, len(after))
	for rel := range after {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	tmp, err := a.tempDir()
	if err != nil {
		return err
	}
	var patch bytes.Buffer
	var changed []string
	for _, rel := range rels {
		f := after[rel]
		from, label := "/dev/null", "/dev/null"
		if old, ok := before[rel]; ok {
			from, label = filepath.Join(tmp, "before"), "a/"+rel
			if err := os.WriteFile(from, old, 0o600); err != nil {
				return stepErrorf(ExitInconclusive, "%v", err)
			}
		}
		diff := exec.Command("diff", "-u", "--label", label, "--label", "b/"+rel, from, f)
		diff.Stdout = &patch
		if rc := exitCode(diff.Run()); rc == ExitOK {
			continue
		} else if rc != 1 {
			return stepErrorf(ExitInconclusive, "baselines: diff of %s failed (exit %d)", rel, rc)
		}
		changed = append(changed, rel)
		// A file outside the repository keeps only its name in the artifact.
		dest := rel
		if strings.HasPrefix(dest, "../") {
			dest = filepath.Base(rel)
		}
		data, err := os.ReadFile(f)
		if err == nil {
			dest = filepath.Join(dir, "baseline-update", dest)
			if err = os.MkdirAll(filepath.Dir(dest), 0o755); err == nil {
				err = os.WriteFile(dest, data, 0o644)
			}
		}
		if err != nil {
			return stepErrorf(ExitInconclusive, "baselines: %v", err)
		}
	}
	patchFile := filepath.Join(dir, "baseline-update.patch")
	if len(changed) == 0 {
		if code != ExitOK {
			return nil
		}
		a.say("record changed no baseline file")
	} else {
		if err := os.WriteFile(patchFile, patch.Bytes(), 0o644); err != nil {
			return stepErrorf(ExitInconclusive, "%v", err)
		}
		a.say("record changed %s: the files are in %s/baseline-update/, the patch is %s", strings.Join(changed, " "), dir, patchFile)
		// A record run whose last pass learnt nothing new reports clean,
		// but the job recorded: the outputs say so (the last value wins).
		if code == ExitOK {
			if err := a.output("verdict", "recorded"); err != nil {
				return err
			}
		}
	}
	where := fmt.Sprintf("The reports directory (`%s`)", dir)
	if in.upload {
		name := a.input("artifact-name")
		if name == "" {
			name = a.artifactName()
		}
		where = fmt.Sprintf("The artifact `%s`", name)
	}
	section := action.RecordedSummary(changed, where, patch.String())
	f, err := os.OpenFile(filepath.Join(dir, "summary.md"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(section)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return stepErrorf(ExitInconclusive, "summary.md: %v", err)
	}
	return a.summary(section)
}

// recordPackagesBaselines writes what the packages' runs recorded into
// the baseline directory (the one baselines names), keeping entries no
// run made, and leaves the pull-request body beside the reports.
func (a *actionStep) recordPackagesBaselines(reports string, baselines []string) error {
	if len(baselines) != 1 {
		return stepErrorf(ExitUsage, "baselines: record with packages needs exactly one directory of baseline files to update")
	}
	if fi, err := os.Stat(baselines[0]); err != nil || !fi.IsDir() {
		return stepErrorf(ExitUsage, "baselines: record with packages needs exactly one directory of baseline files to update")
	}
	args := []string{"report", "pr-body", "--write", "--keep-unseen", "--baselines", baselines[0]}
	if url := a.getenv("RUN_URL"); url != "" {
		args = append(args, "--run-url", url)
	}
	obs, _ := filepath.Glob(filepath.Join(reports, "observations", "*.json"))
	var body bytes.Buffer
	if a.sysgate(&body, nil, append(args, obs...)...) != ExitOK {
		return stepErrorf(ExitUsage, "baselines: sysgate report pr-body could not update %s from the observations (its message above names the agent or file)", baselines[0])
	}
	md := filepath.Join(reports, "baseline-update.md")
	if err := os.WriteFile(md, body.Bytes(), 0o644); err != nil {
		return stepErrorf(ExitInconclusive, "%v", err)
	}
	a.say("baselines in %s updated; the change, as a pull-request body: %s", baselines[0], md)
	return nil
}
