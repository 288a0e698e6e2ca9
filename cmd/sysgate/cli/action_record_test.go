package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Record mode leaves what it changed where the job's user gets it after
// the runner is gone: the changed files under baseline-update/ by their
// path in the repository, a patch that git apply takes at the top of the
// checkout, and the patch in summary.md and the step summary. A file
// record left as it was is in neither.
func TestActionRecordLeavesTheBaselineUpdate(t *testing.T) {
	repo := t.TempDir()
	run := func(dir string, args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	files := map[string]string{"sub/agent.yaml": "version: 1\nagent: a\n", "sub/layers/same.yaml": "version: 1\n"}
	for name, content := range files {
		writeFile(t, filepath.Join(repo, name), content)
	}
	run(repo, "git", "-C", repo, "init", "-q")
	run(repo, "git", "-C", repo, "add", "-A")
	run(repo, "git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
	t.Chdir(filepath.Join(repo, "sub"))

	in := gateInputs{mode: "record", upload: true, baselines: []string{"agent.yaml", "layers", "new.yaml"}}
	before := snapshotBaselines(in.baselines)
	writeFile(t, "agent.yaml", "version: 1\nagent: a\nsyscalls:\n  x86_64:\n    - read # `unreviewed: seen in record mode`\n")
	writeFile(t, "new.yaml", "version: 1\nagent: b\n")

	reports, summary, output := t.TempDir(), filepath.Join(t.TempDir(), "summary"), filepath.Join(t.TempDir(), "output")
	var stdout bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &stdout, Env: []string{"GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary,
		"RUNNER_TEMP=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "INPUT_ARTIFACT_NAME=my-artifact"}}
	a, err := c.newActionStep()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.writeBaselineUpdate(reports, ExitOK, in, before); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	for _, f := range []string{"sub/agent.yaml", "sub/new.yaml"} {
		got, _ := os.ReadFile(filepath.Join(reports, "baseline-update", f))
		want, _ := os.ReadFile(filepath.Join(repo, f))
		if !bytes.Equal(got, want) {
			t.Errorf("baseline-update/%s = %q, want the recorded file %q", f, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(reports, "baseline-update", "sub", "layers", "same.yaml")); err == nil {
		t.Error("an unchanged file is in baseline-update/")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	run(repo, "git", "clone", "-q", repo, clone)
	run(clone, "git", "-C", clone, "apply", filepath.Join(reports, "baseline-update.patch"))
	for _, f := range []string{"sub/agent.yaml", "sub/new.yaml"} {
		got, _ := os.ReadFile(filepath.Join(clone, f))
		want, _ := os.ReadFile(filepath.Join(repo, f))
		if !bytes.Equal(got, want) {
			t.Errorf("the patch applied to the last commit gives %s = %q, want %q", f, got, want)
		}
	}
	steps, _ := os.ReadFile(summary)
	md, _ := os.ReadFile(filepath.Join(reports, "summary.md"))
	for _, text := range []string{string(steps), string(md)} {
		for _, want := range []string{"Record changed `sub/agent.yaml`, `sub/new.yaml` (+5 −0 lines). The artifact `my-artifact`", "```diff\n--- a/sub/agent.yaml"} {
			if !strings.Contains(text, want) {
				t.Errorf("the summary lacks %q:\n%s", want, text)
			}
		}
	}
	if out, _ := os.ReadFile(output); string(out) != "verdict=recorded\n" {
		t.Errorf("outputs %q, want verdict=recorded", out)
	}
}

// A record that failed and changed nothing says nothing: no patch, no
// section, no outputs.
func TestActionRecordFailedSaysNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFile(t, "agent.yaml", "version: 1\n")
	in := gateInputs{mode: "record", baselines: []string{"agent.yaml"}}
	before := snapshotBaselines(in.baselines)
	reports, output := t.TempDir(), filepath.Join(t.TempDir(), "output")
	c := &Command{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Env: []string{"GITHUB_OUTPUT=" + output, "RUNNER_TEMP=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}}
	a, err := c.newActionStep()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.writeBaselineUpdate(reports, ExitInconclusive, in, before); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(reports); len(entries) != 0 {
		t.Errorf("the reports of a failed record that changed nothing hold %v", entries)
	}
	if _, err := os.Stat(output); err == nil {
		t.Error("a failed record that changed nothing wrote outputs")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestActionsDir(t *testing.T) {
	work := t.TempDir()
	action := filepath.Join(work, "_actions", "sysgate", "sysgate", "v1")
	temp := filepath.Join(work, "_temp")
	for _, d := range []string{action, temp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ action, temp, want string }{
		{action, "", filepath.Join(work, "_actions")},
		{"/src/sysgate", temp, filepath.Join(work, "_actions")},
		{"/src/sysgate", t.TempDir(), ""},
		{"", "", ""},
	} {
		if got := actionsDir(tc.action, tc.temp); got != tc.want {
			t.Errorf("actionsDir(%q, %q) = %q, want %q", tc.action, tc.temp, got, tc.want)
		}
	}
}
