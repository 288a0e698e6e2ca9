package ci

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		Uses        string            `yaml:"uses"` // a reusable workflow
		Steps       []struct {
			Uses string `yaml:"uses"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

var (
	pinned = regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$`)
	// local is an action or reusable workflow of this repository (uses: ./),
	// at the caller's own commit.
	local = regexp.MustCompile(`^\./[\w./-]*$`)
)

// mayWrite lists, per workflow file and job, the only scopes granted write.
var mayWrite = map[string]map[string][]string{
	"sysgate-baseline-update.yml": {"update": {"contents", "pull-requests"}, "unlabel": {"pull-requests"}},
	"baseline-update.yml":         {"update": {"contents", "pull-requests"}},                         // the caller grants what the called jobs use
	"release.yml":                 {"release": {"contents"}, "attest": {"id-token", "attestations"}}, // attest alone mints the OIDC token
	"security-test.yml":           {"baseline-update-on-drift": {"actions"}},                         // starts baseline-update.yml; runs no agent
}

// TestWorkflowPolicy: every action and reusable workflow is pinned by a
// full commit SHA with its tag in a comment (or is this repository's own,
// uses: ./), every job declares its permissions and only the jobs in
// mayWrite write, and no job runs in a container (the audit backend's
// records do not reach a container's network namespace; the action picks
// the notify backend there, which users may choose, but this repository's
// own workflows gate on the audit backend).
func TestWorkflowPolicy(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if len(files) < len(wantWorkflows) {
		t.Fatalf(".github/workflows: found only %v", files)
	}
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
				if level == "write" && !slices.Contains(mayWrite[filepath.Base(f)][name], scope) {
					bad("job %s: %s: write", name, scope)
				}
			}
			if job.Container != nil {
				bad("job %s: container job", name)
			}
			uses := []string{job.Uses}
			for _, step := range job.Steps {
				uses = append(uses, step.Uses)
			}
			for _, u := range uses {
				if u != "" && !pinned.MatchString(u) && !local.MatchString(u) {
					bad("job %s: %s not pinned by commit SHA", name, u)
				}
			}
		}
		// The tag comment: a reader must see which release a SHA is.
		for _, line := range strings.Split(string(data), "\n") {
			code := strings.TrimSpace(line)
			if strings.HasPrefix(code, "#") || !strings.Contains(code, "uses: ") || strings.Contains(code, "uses: ./") {
				continue
			}
			if !regexp.MustCompile(`@[0-9a-f]{40} # v\d+\.\d+\.\d+$`).MatchString(code) {
				bad("no version comment: %s", code)
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
		"job build: actions/checkout@v4 not pinned by commit SHA", "no version comment: - uses: actions/checkout@v4",
		"job update: contents: write", "job update: sysgate/sysgate/.github/workflows/sysgate-baseline-update.yml@main not pinned by commit SHA"}
	got := strings.Join(violations["testdata/workflows/unpinned.yml"], "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("unpinned.yml: no %q in\n%s", w, got)
		}
	}
}
