package ci

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionFile is the part of action.yml these tests read.
type actionFile struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string `yaml:"id"`
			Uses string `yaml:"uses"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// actionWorkflow turns a composite action into a workflow actionlint can
// check (it lints workflows, not action metadata): on workflow_call with
// the action's inputs declared, one job whose outputs are the action's and
// whose steps are the action's, copied line for line. Returns the workflow
// and how many lines come before the first step, so that a finding at
// line n of the workflow is at line n-offset of action.yml.
func actionWorkflow(data []byte) (workflow string, offset int, err error) {
	var action actionFile
	if err := yaml.Unmarshal(data, &action); err != nil {
		return "", 0, fmt.Errorf("action.yml: %w", err)
	}
	if action.Runs.Using != "composite" {
		return "", 0, fmt.Errorf("action.yml: runs.using is %q, not composite", action.Runs.Using)
	}
	lines := strings.SplitAfter(string(data), "\n")
	start := slices.Index(lines, "  steps:\n")
	if start < 0 || start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "    - ") {
		return "", 0, fmt.Errorf("action.yml: no `  steps:` line under runs: with steps indented by four spaces")
	}
	var b strings.Builder
	b.WriteString("# action.yml's steps as a workflow (ci/action_lint_test.go)\nname: action\non:\n  workflow_call:\n    inputs:\n")
	for _, name := range slices.Sorted(maps.Keys(action.Inputs)) {
		in := action.Inputs[name]
		fmt.Fprintf(&b, "      %s:\n        description: %s\n        type: string\n        required: false\n        default: %s\n",
			name, strconv.Quote(in.Description), strconv.Quote(in.Default))
	}
	b.WriteString("jobs:\n  action:\n    runs-on: ubuntu-24.04\n    outputs:\n")
	for _, name := range slices.Sorted(maps.Keys(action.Outputs)) {
		fmt.Fprintf(&b, "      %s: %s\n", name, strconv.Quote(action.Outputs[name].Value))
	}
	b.WriteString("    steps:\n")
	offset = strings.Count(b.String(), "\n") - (start + 1)
	for _, l := range lines[start+1:] {
		// The steps end where the next top-level key begins.
		if l != "\n" && !strings.HasPrefix(l, " ") {
			break
		}
		b.WriteString(l)
	}
	return b.String(), offset, nil
}

// lintAction lints action.yml's steps (data) as a workflow in a fresh
// project and returns the findings as action.yml:line:col: message [kind].
func lintAction(t *testing.T, data []byte) []string {
	t.Helper()
	wf, offset, err := actionWorkflow(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{".git", ".github/workflows"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, ".github", "workflows", "action.yml")
	if err := os.WriteFile(path, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range lintWorkflow(t, path) {
		where := fmt.Sprintf("action.yml:%d:%d", e.Line-offset, e.Column)
		if e.Line <= offset {
			where = fmt.Sprintf("action.yml (the generated header, line %d of:\n%s\n)", e.Line, wf)
		}
		out = append(out, fmt.Sprintf("%s: %s [%s]", where, e.Message, e.Kind))
	}
	return out
}

func TestActionStepsPassActionlint(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range lintAction(t, data) {
		t.Error(f)
	}
}

// TestActionlintCatchesBrokenActionSteps: the same lint fails on a step
// that reads an input the action does not declare, at that step's line.
func TestActionlintCatchesBrokenActionSteps(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "INPUT_BACKEND: ${{ inputs.backend }}", "INPUT_BACKEND: ${{ inputs.backends }}"
	line := 1 + strings.Count(string(data[:strings.Index(string(data), from)]), "\n")
	broken := strings.Replace(string(data), from, to, 1)
	want := fmt.Sprintf("action.yml:%d:", line)
	findings := lintAction(t, []byte(broken))
	if !slices.ContainsFunc(findings, func(f string) bool {
		return strings.HasPrefix(f, want) && strings.Contains(f, `"backends" is not defined`)
	}) {
		t.Errorf("inputs.backends at line %d: no finding at %s; got:\n%s", line, want, strings.Join(findings, "\n"))
	}
}

var (
	expression = regexp.MustCompile(`\$\{\{(.*?)\}\}`)
	inputRef   = regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`)
	stepRef    = regexp.MustCompile(`\bsteps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)
	// scriptOutput is how the bootstrap (scripts/action.sh) and the
	// sysgate action verbs (cmd/sysgate/cli/action*.go) set a step output.
	scriptOutput = regexp.MustCompile(`(?m)(?:(?:^\s*|; then |&& |; )output |\.output\(")([a-z-]+)[ "]`)
)

// actionRefProblems checks action.yml (data) against itself and the
// outputs its script writes: every inputs.X in an expression is a declared
// input; every steps.ID.outputs.NAME names a step with that id that runs
// before the reference (or, in outputs:, any step) and an output the
// script writes.
func actionRefProblems(data []byte, script string) []string {
	var action actionFile
	if err := yaml.Unmarshal(data, &action); err != nil {
		return []string{"action.yml: " + err.Error()}
	}
	written := map[string]bool{}
	for _, m := range scriptOutput.FindAllStringSubmatch(script, -1) {
		written[m[1]] = true
	}
	if strings.Contains(script, "--github-output") {
		// sysgate report ... --github-output appends these two.
		written["verdict"], written["violations"] = true, true
	}
	ids := map[string]int{} // step id -> index
	for i, s := range action.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = i
		}
	}
	var problems []string
	lines := strings.Split(string(data), "\n")
	stepsStart := slices.Index(lines, "  steps:")
	step := -1 // the step a line belongs to; -1 before the steps
	for n, line := range lines {
		if stepsStart >= 0 && n > stepsStart && strings.HasPrefix(line, "    - ") {
			step++
		}
		for _, e := range expression.FindAllStringSubmatch(line, -1) {
			for _, m := range inputRef.FindAllStringSubmatch(e[1], -1) {
				if _, ok := action.Inputs[m[1]]; !ok {
					problems = append(problems, fmt.Sprintf("action.yml:%d: inputs.%s is not a declared input", n+1, m[1]))
				}
			}
			for _, m := range stepRef.FindAllStringSubmatch(e[1], -1) {
				i, ok := ids[m[1]]
				switch {
				case !ok:
					problems = append(problems, fmt.Sprintf("action.yml:%d: steps.%s: no step has id %s", n+1, m[1], m[1]))
				case step >= 0 && i >= step:
					problems = append(problems, fmt.Sprintf("action.yml:%d: steps.%s is read by a step that runs before it", n+1, m[1]))
				case action.Runs.Steps[i].Uses != "":
					// An action's outputs (actions/cache's cache-hit) are
					// its own: actionlint checks them in the synthetic workflow.
				case !written[m[2]]:
					problems = append(problems, fmt.Sprintf("action.yml:%d: steps.%s.outputs.%s: the action never writes %q", n+1, m[1], m[2], m[2]))
				}
			}
		}
	}
	for name, o := range action.Outputs {
		if !stepRef.MatchString(o.Value) {
			problems = append(problems, fmt.Sprintf("action.yml: output %s: %q reads no steps.ID.outputs.NAME", name, o.Value))
		}
	}
	slices.Sort(problems)
	return problems
}

func TestActionExpressionsNameInputsAndSteps(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	verbs, _ := filepath.Glob(filepath.Join(repoRoot, "cmd", "sysgate", "cli", "action*.go"))
	for _, f := range verbs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script = append(script, b...)
	}
	for _, p := range actionRefProblems(data, string(script)) {
		t.Error(p)
	}

	// The check can fail: each mistake in a copy is reported.
	for _, c := range []struct{ from, to, want string }{
		{"${{ inputs.packages }}", "${{ inputs.pakages }}", "inputs.pakages is not a declared input"},
		{"value: ${{ steps.gate.outputs.sarif }}", "value: ${{ steps.gates.outputs.sarif }}", "steps.gates: no step has id gates"},
		{"value: ${{ steps.gate.outputs.sarif }}", "value: ${{ steps.gate.outputs.sarif-file }}", `never writes "sarif-file"`},
		{"      id: plan\n", "      id: planned\n", "steps.plan: no step has id plan"},
	} {
		broken := strings.Replace(string(data), c.from, c.to, 1)
		if broken == string(data) {
			t.Fatalf("action.yml has no %q to break", c.from)
		}
		got := actionRefProblems([]byte(broken), string(script))
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%q -> %q: no %q in %q", c.from, c.to, c.want, got)
		}
	}
	// A step reading a later step's output.
	order := []byte("outputs: {}\nruns:\n  using: composite\n  steps:\n    - run: echo ${{ steps.late.outputs.verdict }}\n      shell: bash\n    - id: late\n      run: echo\n      shell: bash\n")
	if got := actionRefProblems(order, "output verdict x"); !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "runs before it") }) {
		t.Errorf("a step reading a later step's output: not reported: %q", got)
	}
}
