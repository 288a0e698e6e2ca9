package ci

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
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
// no network. When the file is in a project (a directory with .git and
// .github/workflows) actionlint runs from its root: the project's
// .github/actionlint.yaml matches its paths against the path as given,
// relative to the working directory, and local actions and reusable
// workflows (uses: ./...) resolve there.
func lintWorkflow(t *testing.T, path string) []finding {
	t.Helper()
	goenv, err := exec.Command("go", "env", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	modcache, proxy, _ := strings.Cut(strings.TrimSpace(string(goenv)), "\n")
	dir, arg := "", path
	if root, ok := projectRoot(path); ok {
		if rel, err := filepath.Rel(root, mustAbs(t, path)); err == nil {
			dir, arg = root, rel
		}
	}
	cmd := exec.Command("go", "run", actionlint, "-pyflakes=", "-format", "{{json .}}", arg)
	cmd.Dir = dir
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

// projectRoot is the closest directory above path that actionlint takes
// for a project: it holds .github/workflows and .git.
func projectRoot(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if s, err := os.Stat(filepath.Join(d, ".github", "workflows")); err == nil && s.IsDir() {
			if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
				return d, true
			}
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// wantWorkflows are the workflows this repository runs; any other file in
// .github/workflows is linted too.
var wantWorkflows = []string{"security-test.yml", "baseline-update.yml", "sysgate-baseline-update.yml", "release.yml", "test.yml"}

// workflowFiles lists .github/workflows/*.yml and *.yaml, and fails when
// one of wantWorkflows is missing.
func workflowFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, want := range wantWorkflows {
		if !slices.Contains(names, want) {
			t.Errorf(".github/workflows/%s is missing (found %v)", want, names)
		}
	}
	return files
}

// workflowsProject copies what actionlint reads into a fresh project: the
// .github directory (workflows and actionlint.yaml), action.yml at the root
// (uses: ./) and again as .sysgate/action.yml, where the reusable workflow
// checks the action out before it runs it (uses: ./.sysgate). In the
// checkout that directory does not exist, and actionlint skips a local
// action it cannot find; here it checks every with: against the action's
// inputs. withConfig false leaves actionlint.yaml out.
func workflowsProject(t *testing.T, withConfig bool) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(repoRoot, ".github")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, ".github", rel), 0o755)
		}
		if !withConfig && (rel == "actionlint.yaml" || rel == "actionlint.yml") {
			return nil
		}
		return copyFile(path, filepath.Join(dir, ".github", rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dst := range []string{"action.yml", ".sysgate/action.yml"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(filepath.Join(repoRoot, "action.yml"), filepath.Join(dir, dst)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func TestWorkflowsPassActionlint(t *testing.T) {
	files := workflowFiles(t)
	project := workflowsProject(t, true)
	for _, f := range files {
		name := filepath.Join(".github", "workflows", filepath.Base(f))
		for _, e := range lintWorkflow(t, filepath.Join(project, name)) {
			t.Errorf("%s:%d:%d: %s [%s]", name, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// TestActionlintConfigHidesOnlyWhatItSays: .github/actionlint.yaml ignores
// findings by message. Without it, the files it names must have findings
// (else the entry is stale) and every one of them must match its patterns
// (else it hides more than it says).
func TestActionlintConfigHidesOnlyWhatItSays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, ".github", "actionlint.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Paths map[string]struct {
			Ignore []string `yaml:"ignore"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".github/actionlint.yaml: %v", err)
	}
	project := workflowsProject(t, false)
	for path, c := range cfg.Paths {
		if strings.ContainsAny(path, "*?[{") {
			t.Errorf(".github/actionlint.yaml: %s: name one file, not a pattern, so an ignore covers no other file", path)
			continue
		}
		var patterns []*regexp.Regexp
		for _, p := range c.Ignore {
			patterns = append(patterns, regexp.MustCompile(p))
		}
		findings := lintWorkflow(t, filepath.Join(project, path))
		if len(findings) == 0 {
			t.Errorf(".github/actionlint.yaml: %s lints clean without it: remove the entry", path)
		}
		for _, e := range findings {
			if !slices.ContainsFunc(patterns, func(r *regexp.Regexp) bool { return r.MatchString(e.Message) }) {
				t.Errorf("%s:%d:%d: %s [%s] (no ignore pattern matches; it must fail the lint)", path, e.Line, e.Column, e.Message, e.Kind)
			}
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

// TestActionlintChecksTheActionsInputs: in the copied project a with: key
// the action does not declare is a finding, in a caller of the action and
// in the reusable workflow's record job (uses: ./.sysgate).
func TestActionlintChecksTheActionsInputs(t *testing.T) {
	project := workflowsProject(t, true)
	for _, name := range []string{"security-test.yml", "sysgate-baseline-update.yml"} {
		path := filepath.Join(project, ".github", "workflows", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		broken := strings.Replace(string(data), "          baselines: ", "          baseline: ", 1)
		if broken == string(data) {
			t.Fatalf("%s: no `baselines:` input to break", name)
		}
		if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range lintWorkflow(t, path) {
			got = append(got, e.Kind+": "+e.Message)
		}
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, `input "baseline" is not defined`) }) {
			t.Errorf("%s with the action's input misspelt: no finding for it; got:\n%s", name, strings.Join(got, "\n"))
		}
	}
}

// reusableUses is how a caller names the reusable workflow, pinned.
var reusableUses = regexp.MustCompile(`uses: sysgate/sysgate/(\.github/workflows/sysgate-baseline-update\.yml)@[0-9a-f]{40}`)

// TestActionDocCallsTheReusableWorkflow: the caller in docs/action.md "The
// reusable baseline-update workflow" is pinned, and lints clean with its
// call pointed at this checkout's reusable workflow, whose inputs and
// secrets actionlint checks it against; a misspelt input fails.
func TestActionDocCallsTheReusableWorkflow(t *testing.T) {
	const heading = "## The reusable baseline-update workflow"
	blocks := blocksOf(t, actionDocPath, heading, "yaml", 1, 1, 30)
	caller := blocks[0]
	if !reusableUses.MatchString(caller.text) {
		t.Fatalf("%s: no `uses: sysgate/sysgate/.github/workflows/sysgate-baseline-update.yml@<40 hex>`", caller)
	}
	project := workflowsProject(t, true)
	lint := func(text string) []finding {
		path := filepath.Join(project, ".github", "workflows", "readme-caller.yml")
		if err := os.WriteFile(path, []byte(reusableUses.ReplaceAllString(text, "uses: ./$1")), 0o644); err != nil {
			t.Fatal(err)
		}
		return lintWorkflow(t, path)
	}
	for _, e := range lint(caller.text) {
		t.Errorf("%s:%d:%d: %s [%s]", caller.path, caller.line+e.Line-1, e.Column, e.Message, e.Kind)
	}
	broken := strings.Replace(caller.text, "      baselines: ", "      baseline: ", 1)
	if broken == caller.text {
		t.Fatalf("%s: no `baselines:` input to break", caller)
	}
	if fs := lint(broken); !slices.ContainsFunc(fs, func(f finding) bool { return strings.Contains(f.Message, `"baseline" is not defined`) }) {
		t.Errorf("a misspelt input of the reusable workflow passes actionlint: %v", fs)
	}
}
