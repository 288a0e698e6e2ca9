package ci

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflowFile is the part of a workflow the policy test reads.
type workflowFile struct {
	Permissions any `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Container   any               `yaml:"container"`
		RunsOn      any               `yaml:"runs-on"`
		Steps       []struct {
			Uses string `yaml:"uses"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

var pinned = regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)

// TestWorkflowPolicy: every action is pinned by a full commit SHA with
// its tag in a comment, every job declares its permissions and only the
// update job may write, and no job runs in a container (no audit records
// reach a container's network namespace).
func TestWorkflowPolicy(t *testing.T) {
	files, _ := filepath.Glob("github/workflows/*.yml")
	files = append(files, "testdata/workflows/unpinned.yml")
	violations := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf workflowFile
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		bad := func(format string, args ...any) {
			violations[f] = append(violations[f], fmt.Sprintf(format, args...))
		}
		switch p := wf.Permissions.(type) {
		case map[string]any:
			for scope, level := range p {
				if level != "read" {
					bad("workflow-level permission %s: %v", scope, level)
				}
			}
		case nil:
			bad("no workflow-level permissions")
		}
		for name, job := range wf.Jobs {
			if job.Permissions == nil {
				bad("job %s: no permissions", name)
			}
			for scope, level := range job.Permissions {
				if level == "write" && name != "update" {
					bad("job %s: %s: write", name, scope)
				}
			}
			if job.Container != nil {
				bad("job %s: container job", name)
			}
			for _, step := range job.Steps {
				if step.Uses != "" && !pinned.MatchString(step.Uses) {
					bad("job %s: %s not pinned by commit SHA", name, step.Uses)
				}
			}
		}
		// The tag comment: a reader must see which release a SHA is.
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "uses: ") && !regexp.MustCompile(`@[0-9a-f]{40} # v\d+\.\d+\.\d+$`).MatchString(line) {
				bad("no version comment: %s", strings.TrimSpace(line))
			}
		}
	}
	for f, v := range violations {
		if f == "testdata/workflows/unpinned.yml" {
			continue
		}
		t.Errorf("%s:\n  %s", f, strings.Join(v, "\n  "))
	}
	// The checks can fail: the deliberately bad workflow trips each one.
	want := []string{"workflow-level permission contents: write", "job build: no permissions", "job build: container job",
		"job build: actions/checkout@v4 not pinned by commit SHA", "no version comment: - uses: actions/checkout@v4"}
	got := strings.Join(violations["testdata/workflows/unpinned.yml"], "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("unpinned.yml: no %q in\n%s", w, got)
		}
	}
}
