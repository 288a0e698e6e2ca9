package ci

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/internal/testutil"
)

// The README's "Gate your own agent" section and the spec of docs/specs.md
// are what a user pastes into a repository: these tests keep the workflow,
// its packages variant and the spec true to action.yml and to the Go API.
const (
	readmePath     = "../README.md"
	specsPath      = "../docs/specs.md"
	actionDocPath  = "../docs/action.md"
	actionPath     = "../action.yml"
	gateSection    = "## Gate your own agent"
	specSection    = "## The spec"
	goAPISection   = "## The Go API for specs"
	maxWorkflow    = 25
	maxSpec        = 20
	sysgateUses    = "sysgate/sysgate@"
	placeholderSHA = "0000000000000000000000000000000000000000" // no commit has it: a paste that keeps it fails at once
)

var (
	pinnedUses     = regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$`)
	sysgateUsesRef = regexp.MustCompile(`uses: ` + regexp.QuoteMeta(sysgateUses) + `[0-9a-f]{40}`)
)

// snippet is one fenced code block of the README or a page of docs/.
type snippet struct {
	path, lang, text string
	line             int // the file's line of its first content line
	lines            int
}

func (s snippet) String() string { return fmt.Sprintf("%s:%d (```%s)", s.path, s.line, s.lang) }

// docBlocks returns the fenced code blocks of the section of the markdown
// file path that starts with the heading line; it ends at the next heading
// of the same or a higher level (lines in code blocks are no headings).
func docBlocks(t *testing.T, path, heading string) []snippet {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	level := headingLevel(heading)
	var blocks []snippet
	in, found := false, false
	for i := 0; i < len(lines); i++ {
		if lang, ok := strings.CutPrefix(strings.TrimLeft(lines[i], " "), "```"); ok {
			start := i + 1
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[i], " "), "```"); i++ {
			}
			if i == len(lines) {
				t.Fatalf("%s:%d: a code block that never ends", path, start)
			}
			if in {
				blocks = append(blocks, snippet{path: path, lang: strings.TrimSpace(lang), text: strings.Join(lines[start:i], "\n") + "\n", line: start + 1, lines: i - start})
			}
			continue
		}
		if l := headingLevel(lines[i]); l > 0 {
			if lines[i] == heading {
				in, found = true, true
			} else if in && l <= level {
				break
			}
		}
	}
	if !found {
		t.Fatalf("%s: no section %q: the snippets users paste live there", path, heading)
	}
	return blocks
}

func headingLevel(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || n > 6 || !strings.HasPrefix(line[n:], " ") {
		return 0
	}
	return n
}

// blocksOf are the blocks of one language of the section heading of the
// file path, at least min and at most max of them, each at most maxLines
// long.
func blocksOf(t *testing.T, path, heading string, lang string, min, max, maxLines int) []snippet {
	t.Helper()
	all := docBlocks(t, path, heading)
	t.Helper()
	var out []snippet
	for _, b := range all {
		if b.lang == lang {
			out = append(out, b)
		}
	}
	if len(out) < min || len(out) > max {
		t.Fatalf("%s: section %q has %d ```%s blocks, want %d to %d", path, heading, len(out), lang, min, max)
	}
	for _, b := range out {
		if b.lines > maxLines {
			t.Errorf("%s: %d lines, more than the %d a user pastes at once: shorten it", b, b.lines, maxLines)
		}
	}
	return out
}

// actionInputs are the inputs action.yml declares.
func actionInputs(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]yaml.Node `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	inputs := map[string]bool{}
	for name := range action.Inputs {
		inputs[name] = true
	}
	if len(inputs) == 0 {
		t.Fatalf("%s declares no inputs", path)
	}
	return inputs
}

// readmeWorkflow is the part of a workflow the README's promises are about.
type readmeWorkflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		RunsOn string `yaml:"runs-on"`
		Steps  []struct {
			Uses string         `yaml:"uses"`
			With map[string]any `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// checkWith reports the keys of with that action.yml does not declare, and
// the ones of want that are missing.
func checkWith(t *testing.T, where fmt.Stringer, with map[string]any, inputs map[string]bool, want ...string) {
	t.Helper()
	for key := range with {
		if !inputs[key] {
			t.Errorf("%s: with: %s is not an input of %s", where, key, actionPath)
		}
	}
	for _, key := range want {
		if _, ok := with[key]; !ok {
			t.Errorf("%s: with: has no %s", where, key)
		}
	}
}

// lintProject writes workflows into a new git project whose root holds a
// copy of action (with edit applied), each workflow's `uses: sysgate/sysgate@sha`
// turned into `uses: ./`, so actionlint checks the step's inputs against
// that action.yml. It returns the findings per workflow name.
func lintProject(t *testing.T, workflows map[string]string, edit func(string) string) map[string][]finding {
	t.Helper()
	action, err := os.ReadFile(actionPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wfDir := filepath.Join(dir, ".github", "workflows")
	// actionlint looks for local actions only in a project: a directory
	// with .git and .github/workflows.
	for _, d := range []string{filepath.Join(dir, ".git"), wfDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), []byte(edit(string(action))), 0o644); err != nil {
		t.Fatal(err)
	}
	found := map[string][]finding{}
	for name, text := range workflows {
		path := filepath.Join(wfDir, name)
		if err := os.WriteFile(path, []byte(sysgateUsesRef.ReplaceAllString(text, "uses: ./")), 0o644); err != nil {
			t.Fatal(err)
		}
		found[name] = lintWorkflow(t, path)
	}
	return found
}

// TestReadmeWorkflow: the workflow of "Gate your own agent" is a valid
// workflow that keeps its promises (pinned actions, read-only token, no
// persisted credentials), passes actionlint with its sysgate step checked
// against action.yml, and so does its packages variant in docs/specs.md.
func TestReadmeWorkflow(t *testing.T) {
	wf := blocksOf(t, readmePath, gateSection, "yaml", 1, 1, maxWorkflow)[0]
	variant := blocksOf(t, specsPath, specSection, "yaml", 1, 1, maxWorkflow)[0]
	inputs := actionInputs(t, actionPath)

	var w readmeWorkflow
	if err := yaml.Unmarshal([]byte(wf.text), &w); err != nil {
		t.Fatalf("%s: not YAML: %v", wf, err)
	}
	for _, event := range []string{"push", "pull_request"} {
		if _, ok := w.On[event]; !ok {
			t.Errorf("%s: on: has no %s", wf, event)
		}
	}
	if len(w.Permissions) != 1 || w.Permissions["contents"] != "read" {
		t.Errorf("%s: permissions: %v, want only contents: read", wf, w.Permissions)
	}
	if len(w.Jobs) != 1 {
		t.Fatalf("%s: %d jobs, want one", wf, len(w.Jobs))
	}
	var sysgateSteps, checkouts int
	for name, job := range w.Jobs {
		if job.RunsOn != "ubuntu-24.04" {
			t.Errorf("%s: job %s runs on %q, want ubuntu-24.04", wf, name, job.RunsOn)
		}
		for _, step := range job.Steps {
			if !pinnedUses.MatchString(step.Uses) {
				t.Errorf("%s: uses: %s is not pinned by a full commit SHA", wf, step.Uses)
			}
			switch {
			case strings.HasPrefix(step.Uses, "actions/checkout@"):
				checkouts++
				if v, ok := step.With["persist-credentials"]; !ok || v != false {
					t.Errorf("%s: actions/checkout without persist-credentials: false (the agent could read the token from .git/config)", wf)
				}
			case strings.HasPrefix(step.Uses, sysgateUses):
				sysgateSteps++
				if step.Uses != sysgateUses+placeholderSHA {
					t.Errorf("%s: uses: %s, want the placeholder %s%s (there is no release to pin yet; the prose says to replace it)", wf, step.Uses, sysgateUses, placeholderSHA)
				}
				checkWith(t, wf, step.With, inputs, "command", "baselines")
			}
		}
	}
	if sysgateSteps != 1 || checkouts != 1 {
		t.Fatalf("%s: %d sysgate steps and %d checkouts, want one each", wf, sysgateSteps, checkouts)
	}

	// The packages variant replaces the README workflow's last two lines
	// (docs/specs.md says so): command and baselines.
	var with map[string]any
	if err := yaml.Unmarshal([]byte(variant.text), &with); err != nil {
		t.Fatalf("%s: not YAML: %v", variant, err)
	}
	checkWith(t, variant, with, inputs, "packages", "baselines")
	lines := strings.Split(strings.TrimSuffix(wf.text, "\n"), "\n")
	if len(lines) < 2 || !strings.Contains(lines[len(lines)-2], "command:") || !strings.Contains(lines[len(lines)-1], "baselines:") {
		t.Fatalf("%s: the last two lines are not command: and baselines:, which the packages variant replaces", wf)
	}
	packagesWf := strings.Join(lines[:len(lines)-2], "\n") + "\n" + variant.text
	// source is the file and line a line of a linted workflow came from.
	source := func(name string, line int) string {
		if name == "sysgate-packages.yml" && line > len(lines)-2 {
			return fmt.Sprintf("%s:%d", variant.path, variant.line+line-1-(len(lines)-2))
		}
		return fmt.Sprintf("%s:%d", wf.path, wf.line+line-1)
	}

	workflows := map[string]string{"sysgate.yml": wf.text, "sysgate-packages.yml": packagesWf}
	for name, fs := range lintProject(t, workflows, func(s string) string { return s }) {
		for _, f := range fs {
			t.Errorf("%s:%d: actionlint (as %s): %s [%s]", source(name, f.Line), f.Column, name, f.Message, f.Kind)
		}
	}

	// The control: the same workflows against an action.yml whose inputs
	// were renamed must fail, or actionlint never read the action.
	renamed := func(s string) string {
		for _, in := range []string{"command", "packages"} {
			s = strings.Replace(s, "\n  "+in+":\n", "\n  "+in+"-renamed:\n", 1)
		}
		return s
	}
	for name, fs := range lintProject(t, workflows, renamed) {
		var caught bool
		for _, f := range fs {
			caught = caught || (f.Kind == "action" && strings.Contains(f.Message, "is not defined"))
		}
		if !caught {
			t.Errorf("actionlint found no undefined input in %s against an action.yml without its input: %v", name, fs)
		}
	}
}

// TestSpecsDocCompiles: the spec of docs/specs.md and its snippet of
// "The Go API for specs" compile (go vet) against this checkout, in a
// module of their own as a user's would be, offline.
func TestSpecsDocCompiles(t *testing.T) {
	spec := blocksOf(t, specsPath, specSection, "go", 1, 1, maxSpec)[0]
	api := blocksOf(t, specsPath, goAPISection, "go", 1, 1, 50)[0]
	if n := strings.Count(fileText(t, specsPath), "RunSpecs("); n != 1 {
		t.Errorf("%s: %d specs with RunSpecs(, want one canonical spec (in %q)", specsPath, n, specSection)
	}
	if n := strings.Count(fileText(t, readmePath), "RunSpecs("); n != 0 {
		t.Errorf("%s: %d specs with RunSpecs(, want none: the canonical spec is in %s, which the README links", readmePath, n, specsPath)
	}

	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	env := testutil.UserModule(t, mod, root, "example.com/myrepo", map[string]string{
		"security/my_agent_test.go": spec.text,
		"api/api_test.go":           wrapGoAPI(api.text),
	})
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = mod
	cmd.Env = append(append(os.Environ(), env...),
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("go vet of the Go snippets (security/my_agent_test.go is %s, api/api_test.go wraps %s): %v\n%s\nsecurity/my_agent_test.go:\n%s\napi/api_test.go:\n%s",
			spec, api, err, out.String(), numbered(spec.text), numbered(wrapGoAPI(api.text)))
	}
}

// wrapGoAPI puts the Go API snippet (statements of a spec, using ctx and
// a workspace ws) into a spec of a package of its own.
func wrapGoAPI(body string) string {
	return `package api_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/ci/gatetest"
)

var _ = It("runs the Go API snippet of docs/specs.md", func(ctx SpecContext) {
	ws := GinkgoT().TempDir()
` + body + `	_ = ws
})

// An import the snippet stops using must not fail the build.
var _, _, _, _ = time.Second, harness.WithTimeout, gatetest.Run, Equal
`
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func numbered(text string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%3d  %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

// tryItSection is the README's loop on the reader's own agent, which
// cmd/sysgate's TestReadmeLoop runs line by line.
const tryItSection = "## Try it on your agent"

// readmeCommandTests names, for each command of the README outside
// tryItSection, the test that runs it: file (from the repository's root)
// and function.
var readmeCommandTests = map[string][2]string{
	"go install github.com/sysgate/sysgate/cmd/sysgate@<version>": {"cmd/sysgate/install_test.go", "TestGoInstallFromCleanModuleCache"},
	"make release":       {"cmd/sysgate/release_test.go", "TestReleaseRunsWithoutLibseccomp"},
	"make security-test": {"suites/internal/gate/sudo_test.go", "TestSecurityTestWithoutRoot"},
	"make test":          {".ci/run", ""},
}

// TestReadmeCommandsAreTested: every command line of the README's shell
// blocks runs in a test: those of "Try it on your agent" in
// cmd/sysgate's TestReadmeLoop, every other one in the test
// readmeCommandTests names, which must exist.
func TestReadmeCommandsAreTested(t *testing.T) {
	loop := map[int]bool{}
	for _, b := range blocksOf(t, readmePath, tryItSection, "sh", 1, 1, 10) {
		for i := range b.lines {
			loop[b.line+i] = true
		}
	}
	if !strings.Contains(fileText(t, "../cmd/sysgate/readme_test.go"), "func TestReadmeLoop(") {
		t.Errorf("../cmd/sysgate/readme_test.go has no TestReadmeLoop, which runs %q", tryItSection)
	}
	var n int
	for _, b := range blocksOf(t, readmePath, "# sysgate", "sh", 2, 10, 10) {
		for i, line := range strings.Split(strings.TrimSuffix(b.text, "\n"), "\n") {
			command, _, _ := strings.Cut(line, "#")
			command = strings.TrimSpace(command)
			if command == "" || loop[b.line+i] {
				continue
			}
			n++
			test, ok := readmeCommandTests[command]
			if !ok {
				t.Errorf("%s:%d: %q runs in no test: add one, and name it in readmeCommandTests", readmePath, b.line+i, command)
				continue
			}
			if test[1] != "" && !strings.Contains(fileText(t, "../"+test[0]), "func "+test[1]+"(") {
				t.Errorf("%s:%d: %q: %s has no %s any more", readmePath, b.line+i, command, test[0], test[1])
			}
			if test[1] == "" && !strings.Contains(fileText(t, "../"+test[0]), command) {
				t.Errorf("%s:%d: %q: %s does not run it any more", readmePath, b.line+i, command, test[0])
			}
		}
	}
	if n != len(readmeCommandTests) {
		t.Errorf("%s: %d commands outside %q, and readmeCommandTests names %d: drop the ones the README no longer has", readmePath, n, tryItSection, len(readmeCommandTests))
	}
}
