package ci

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// lintWorkflow runs actionlint's checks over one workflow file, with
// shellcheck on the run: scripts when it is installed.
func lintWorkflow(t *testing.T, path string) []*actionlint.Error {
	t.Helper()
	opts := &actionlint.LinterOptions{}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, opts)
	if err != nil {
		t.Fatalf("new linter: %v", err)
	}
	errs, err := l.LintFile(path, nil)
	if err != nil {
		t.Fatalf("lint %s: %v", path, err)
	}
	return errs
}

func TestWorkflowsPassActionlint(t *testing.T) {
	files, err := filepath.Glob("github/workflows/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("want security-test.yml and baseline-update.yml, found %v", files)
	}
	for _, f := range files {
		for _, e := range lintWorkflow(t, f) {
			t.Errorf("%s:%d:%d: %s [%s]", f, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// TestActionlintCatchesBrokenWorkflow proves the lint test above can fail:
// a workflow with known mistakes must produce those findings.
func TestActionlintCatchesBrokenWorkflow(t *testing.T) {
	errs := lintWorkflow(t, "testdata/workflows/broken.yml")
	kinds := map[string]bool{}
	for _, e := range errs {
		kinds[e.Kind] = true
	}
	for _, want := range []string{"runner-label", "expression", "job-needs"} {
		if !kinds[want] {
			var got []string
			for _, e := range errs {
				got = append(got, e.Kind+": "+e.Message)
			}
			t.Errorf("no %q finding for testdata/workflows/broken.yml; got:\n%s", want, strings.Join(got, "\n"))
		}
	}
}
