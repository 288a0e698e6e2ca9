package ci

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlint is the pinned workflow linter. It runs as a tool (go run), so
// it stays out of the module's import graph; scripts/deps.sh reads this
// line and builds it ahead, so a test run fetches nothing.
const actionlint = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// finding is one actionlint error in its JSON output.
type finding struct {
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Kind    string `json:"kind"`
}

// lintWorkflow runs actionlint over one workflow file. actionlint runs
// shellcheck over the run: scripts when it is on PATH; pyflakes is off.
// The module cache is tried as a proxy first, so a cached actionlint needs
// no network.
func lintWorkflow(t *testing.T, path string) []finding {
	t.Helper()
	goenv, err := exec.Command("go", "env", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	modcache, proxy, _ := strings.Cut(strings.TrimSpace(string(goenv)), "\n")
	cmd := exec.Command("go", "run", actionlint, "-pyflakes=", "-format", "{{json .}}", path)
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.Join(modcache, "cache", "download")+","+proxy)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run() // exit 1 with findings on stdout; go run's own failures leave stdout empty
	var fs []finding
	if err := json.Unmarshal(stdout.Bytes(), &fs); err != nil {
		t.Fatalf("%s %s: %v (%v)\n%s%s", actionlint, path, err, runErr, stdout.String(), stderr.String())
	}
	if runErr != nil && len(fs) == 0 {
		t.Fatalf("%s %s: %v\n%s", actionlint, path, runErr, stderr.String())
	}
	return fs
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
