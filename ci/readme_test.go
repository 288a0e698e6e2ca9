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

// The README's "Gate your own agent" section is what a user pastes into a
// repository: these tests keep its workflow and its spec true to
// action.yml and to the Go API.
const (
	readmePath     = "../README.md"
	actionPath     = "../action.yml"
	gateSection    = "## Gate your own agent"
	goAPISection   = "### The Go API for specs"
	maxWorkflow    = 25
	maxSpec        = 20
	sysgateUses    = "sysgate/sysgate@"
	placeholderSHA = "0000000000000000000000000000000000000000" // no commit has it: a paste that keeps it fails at once
)

var (
	pinnedUses     = regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$`)
	sysgateUsesRef = regexp.MustCompile(`uses: ` + regexp.QuoteMeta(sysgateUses) + `[0-9a-f]{40}`)
)

// snippet is one fenced code block of the README.
type snippet struct {
	lang, text string
	line       int // the README line of its first content line
	lines      int
}

func (s snippet) String() string { return fmt.Sprintf("%s:%d (```%s)", readmePath, s.line, s.lang) }

// readmeBlocks returns the fenced code blocks of the README section that
// starts with the heading line; it ends at the next heading of the same or
// a higher level (lines in code blocks are no headings).
func readmeBlocks(t *testing.T, heading string) []snippet {
	t.Helper()
	data, err := os.ReadFile(readmePath)
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
				t.Fatalf("%s:%d: a code block that never ends", readmePath, start)
			}
			if in {
				blocks = append(blocks, snippet{lang: strings.TrimSpace(lang), text: strings.Join(lines[start:i], "\n") + "\n", line: start + 1, lines: i - start})
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
		t.Fatalf("%s: no section %q: the snippets users paste live there", readmePath, heading)
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

// blocksOf are the blocks of one language, at least min and at most max
// of them, each at most maxLines long.
func blocksOf(t *testing.T, heading string, all []snippet, lang string, min, max, maxLines int) []snippet {
	t.Helper()
	var out []snippet
	for _, b := range all {
		if b.lang == lang {
			out = append(out, b)
		}
	}
	if len(out) < min || len(out) > max {
		t.Fatalf("%s: section %q has %d ```%s blocks, want %d to %d", readmePath, heading, len(out), lang, min, max)
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
// against action.yml, and so does its packages variant.
func TestReadmeWorkflow(t *testing.T) {
	blocks := readmeBlocks(t, gateSection)
	yamls := blocksOf(t, gateSection, blocks, "yaml", 2, 2, maxWorkflow)
	wf, variant := yamls[0], yamls[1]
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

	// The packages variant replaces the workflow's last two lines (the
	// prose says so): command and baselines.
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
	// readmeLine is the README line a line of a linted workflow came from.
	readmeLine := func(name string, line int) int {
		if name == "sysgate-packages.yml" && line > len(lines)-2 {
			return variant.line + line - 1 - (len(lines) - 2)
		}
		return wf.line + line - 1
	}

	workflows := map[string]string{"sysgate.yml": wf.text, "sysgate-packages.yml": packagesWf}
	for name, fs := range lintProject(t, workflows, func(s string) string { return s }) {
		for _, f := range fs {
			t.Errorf("%s:%d:%d: actionlint (as %s): %s [%s]", readmePath, readmeLine(name, f.Line), f.Column, name, f.Message, f.Kind)
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

// TestReadmeSpecCompiles: the spec of "Gate your own agent" and the
// snippet of "The Go API for specs" compile (go vet) against this
// checkout, in a module of their own as a user's would be, offline.
func TestReadmeSpecCompiles(t *testing.T) {
	spec := blocksOf(t, gateSection, readmeBlocks(t, gateSection), "go", 1, 1, maxSpec)[0]
	api := blocksOf(t, goAPISection, readmeBlocks(t, goAPISection), "go", 1, 1, 50)[0]
	if n := strings.Count(readmeAll(t), "RunSpecs("); n != 1 {
		t.Errorf("%s: %d specs with RunSpecs(, want one canonical spec (in %q)", readmePath, n, gateSection)
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
		t.Errorf("go vet of the README's Go snippets (security/my_agent_test.go is %s, api/api_test.go wraps %s): %v\n%s\nsecurity/my_agent_test.go:\n%s\napi/api_test.go:\n%s",
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
	"github.com/sysgate/sysgate/harness/gatetest"
)

var _ = It("runs the README's Go API snippet", func(ctx SpecContext) {
	ws := GinkgoT().TempDir()
` + body + `	_ = ws
})

// An import the snippet stops using must not fail the build.
var _, _, _, _ = time.Second, harness.WithTimeout, gatetest.Run, Equal
`
}

func readmeAll(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(readmePath)
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
