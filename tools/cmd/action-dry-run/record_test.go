package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkBaselineUpdate: a record run leaves the baseline it wrote where
// the job's user gets it after the runner is gone: each changed file (by
// its path in the repository, files) under baseline-update/ and
// baseline-update.patch in the reports and the artifact, the patch in the
// step summary. The patch applied to a clone of the repository's last
// commit gives the files record wrote in the workspace ws. No lock file
// is left in the reports.
func checkBaselineUpdate(t *testing.T, j job, ws string, files ...string) {
	t.Helper()
	reports := j.res.Output("reports")
	artifact := strings.TrimPrefix(j.step(t, "upload").Outputs["artifact-url"], "file://")
	for _, dir := range []string{reports, artifact} {
		if _, err := os.Stat(filepath.Join(dir, "baseline-update.patch")); err != nil {
			t.Errorf("record left no patch: %v", err)
		}
		for _, f := range files {
			want, err := os.ReadFile(filepath.Join(ws, f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "baseline-update", f))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s/baseline-update/%s is not the file record wrote (%v):\n%s", dir, f, err, got)
			}
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".lock") {
				t.Errorf("a lock file was left in the reports: %s", p)
			}
			return nil
		})
	}
	summary, err := os.ReadFile(j.res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"### Recorded baseline", "git apply baseline-update.patch", "```diff"}, files...) {
		if !strings.Contains(string(summary), want) {
			t.Errorf("the step summary lacks %q:\n%s", want, summary)
		}
	}

	clone := filepath.Join(t.TempDir(), "clone")
	patch := filepath.Join(reports, "baseline-update.patch")
	for _, args := range [][]string{{"clone", "-q", ws, clone}, {"-C", clone, "apply", patch}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, f := range files {
		want, _ := os.ReadFile(filepath.Join(ws, f))
		got, err := os.ReadFile(filepath.Join(clone, f))
		if err != nil || string(got) != string(want) {
			t.Errorf("the patch applied to the last commit does not give the recorded %s (%v):\n%s", f, err, got)
		}
	}
}

// checkUnverifiedCounted: a clean run's execs that were gone before /proc
// showed them (the sample agent's shell) are a count in the step summary,
// never a warning annotation.
func checkUnverifiedCounted(t *testing.T, j job) {
	t.Helper()
	for _, a := range j.res.Annotations {
		if a.Level == "warning" && strings.Contains(a.Title+a.Message, "unverified") {
			t.Errorf("a clean run warned about unverified execs: %+v", a)
		}
	}
	var result struct {
		Unverified uint64 `json:"unverified_execs"`
	}
	b, err := os.ReadFile(filepath.Join(j.res.Output("reports"), "result.json"))
	if err == nil {
		err = json.Unmarshal(b, &result)
	}
	if err != nil {
		t.Fatalf("result.json: %v", err)
	}
	summary, _ := os.ReadFile(j.res.Summary)
	t.Logf("the clean run had %d unverified execs", result.Unverified)
	if want := fmt.Sprintf("Execs unverified (gone before /proc showed the program): sample %d.", result.Unverified); result.Unverified > 0 &&
		!strings.Contains(string(summary), want) {
		t.Errorf("the step summary does not say %q:\n%s", want, summary)
	}
}
