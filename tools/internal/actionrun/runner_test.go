package actionrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runAction writes an action.yml and runs it in a new workspace.
func runAction(t *testing.T, yml string, inputs map[string]string, cacheDir string) (*Result, Config, error) {
	t.Helper()
	actionDir, ws, out := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(actionDir, "action.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := LoadAction(filepath.Join(actionDir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	cfg := Config{
		Action: a, ActionDir: actionDir, Workspace: ws, Inputs: inputs, OutDir: out, CacheDir: cacheDir,
		Env:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "FROM_RUNNER=1"},
		Stdout: &log,
	}
	r, err := Run(context.Background(), cfg)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("job log:\n%s", log.String())
		}
	})
	return r, cfg, err
}

const filesAction = `
name: files
inputs:
  greeting:
    default: hello
  name:
    default: ""
outputs:
  multi:
    value: ${{ steps.write.outputs.multi }}
  greeting:
    value: ${{ steps.write.outputs.greeting }}
  after:
    value: ${{ steps.after.outputs.seen }}
runs:
  using: composite
  steps:
    - id: write
      shell: bash
      env:
        GREETING: ${{ inputs.greeting }}, ${{ inputs.name || 'world' }}
      run: |
        echo "greeting=$GREETING" >> "$GITHUB_OUTPUT"
        { echo "multi<<EOF_1"; echo "line 1"; echo "line 2"; echo "EOF_1"; } >> "$GITHUB_OUTPUT"
        mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\necho from-path\n' > "$RUNNER_TEMP/bin/tool" && chmod +x "$RUNNER_TEMP/bin/tool"
        echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
        echo "FROM_ENV_FILE=yes" >> "$GITHUB_ENV"
        echo "## summary of write" >> "$GITHUB_STEP_SUMMARY"
        echo "::warning file=a.yaml,line=3::look here"
    - id: check
      if: steps.write.outputs.greeting == 'HELLO, WORLD'
      shell: bash
      working-directory: sub
      env:
        MULTI: ${{ steps.write.outputs.multi }}
      run: |
        test "$(tool)" = from-path || exit 20
        test "$FROM_ENV_FILE" = yes || exit 21
        test "$FROM_RUNNER" = 1 && test "$CI" = true && test "$GITHUB_ACTIONS" = true || exit 22
        test "$MULTI" = "$(printf 'line 1\nline 2')" || exit 23
        test "$PWD" = "$GITHUB_WORKSPACE/sub" && test "$GITHUB_ACTION_PATH" = "${{ github.action_path }}" || exit 24
        case $- in *e*) ;; *) exit 10 ;; esac
        set -o | grep -q 'pipefail.*on' || exit 11
        false | true
    - id: skipped
      shell: bash
      run: exit 12
    - id: after
      if: ${{ failure() && steps.check.outcome == 'failure' && steps.skipped.outcome == 'skipped' }}
      shell: bash
      run: echo "seen=yes" >> "$GITHUB_OUTPUT"
    - if: always()
      uses: actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02
      with:
        name: reports-${{ inputs.greeting }}
        path: sub
        if-no-files-found: error
`

// TestRunFollowsGitHub runs steps through real bash: outputs (multi-line
// too), GITHUB_PATH, GITHUB_ENV, the summary, if: with and without status
// functions, working-directory, bash -eo pipefail, the artifact upload.
func TestRunFollowsGitHub(t *testing.T) {
	yml := strings.Replace(filesAction, "    - id: write\n", "    - shell: bash\n      run: mkdir -p sub && echo report > sub/r.txt && mkdir sub/.hidden && echo x > sub/.hidden/h\n    - id: write\n", 1)
	r, _, err := runAction(t, yml, map[string]string{"greeting": "Hello"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"write": Success, "check": Failure, "skipped": Skipped, "after": Success}
	for id, outcome := range want {
		if s := r.Step(id); s == nil || s.Outcome != outcome {
			t.Errorf("step %s: %+v, want %s", id, s, outcome)
		}
	}
	if s := r.Step("check"); s != nil && s.ExitCode != 1 {
		t.Errorf("check exited %d, want 1 from `false | true` under pipefail (10: no -e, 11: no pipefail, 20-24: the environment)", s.ExitCode)
	}
	if r.Job != Failure || r.ExitCode != 1 {
		t.Errorf("job %s exit %d, want failure 1", r.Job, r.ExitCode)
	}
	for k, v := range map[string]string{"greeting": "Hello, world", "multi": "line 1\nline 2", "after": "yes"} {
		if got := r.Output(k); got != v {
			t.Errorf("output %s = %q, want %q", k, got, v)
		}
	}
	if b, err := os.ReadFile(r.Summary); err != nil || string(b) != "## summary of write\n" {
		t.Errorf("step summary: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.Artifacts, "reports-Hello", "r.txt")); err != nil || string(b) != "report\n" {
		t.Errorf("artifact: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(r.Artifacts, "reports-Hello", ".hidden")); err == nil {
		t.Errorf("hidden files were uploaded (upload-artifact leaves them out unless include-hidden-files)")
	}
	found := false
	for _, a := range r.Annotations {
		found = found || a.Level == "warning" && a.File == "a.yaml" && a.Line == 3 && a.Message == "look here"
	}
	if !found {
		t.Errorf("the ::warning annotation was not collected: %+v", r.Annotations)
	}
}

func TestRunInputs(t *testing.T) {
	_, _, err := runAction(t, filesAction, map[string]string{"greting": "x"}, "")
	if err == nil || !strings.Contains(err.Error(), `input "greting"`) || !strings.Contains(err.Error(), "greeting") {
		t.Errorf("an unknown input: want an error naming it and the inputs there are, got %v", err)
	}
	required := strings.Replace(filesAction, "  name:\n    default: \"\"", "  name:\n    required: true", 1)
	if _, _, err := runAction(t, required, nil, ""); err == nil || !strings.Contains(err.Error(), `"name" is required`) {
		t.Errorf("a required input not given: got %v", err)
	}
}

// TestRunRefusesWhatItDoesNotKnow: an expression, action or input of an
// action it does not simulate stops the dry run, naming the step.
func TestRunRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{"    - name: odd\n      if: contains(inputs.greeting, 'h')\n      shell: bash\n      run: true\n", `step "odd": if: "contains(inputs.greeting, 'h')": the function contains() is not supported`},
		{"    - name: env\n      shell: bash\n      env:\n        X: ${{ env.HOME }}\n      run: true\n", `step "env": env.X: ${{ env.HOME }}: the context "env" is not supported`},
		{"    - name: typo\n      shell: bash\n      run: echo ${{ inputs.greting }}\n", `inputs.greting (no such property) is not supported`},
		{"    - name: no such step\n      if: steps.nosuch.outputs.x == ''\n      shell: bash\n      run: true\n", `steps.nosuch (no such property) is not supported`},
		{"    - name: github\n      shell: bash\n      run: echo ${{ github.nonesuch }}\n", `github.nonesuch (no such property) is not supported`},
		{"    - uses: actions/checkout@v4\n", `uses: actions/checkout@v4 (it simulates`},
		{"    - uses: actions/cache/restore@v4\n      with:\n        path: x\n        key: k\n        restore-keys: k-\n", `actions/cache/restore's input restore-keys is not supported`},
		{"    - uses: actions/cache/save@v4\n      with:\n        path: |\n          x\n          y\n        key: k\n", `the cache path "x\ny" (more than one path`},
		{"    - name: py\n      shell: python\n      run: print(1)\n", `shell: python is not supported`},
		{"    - name: custom\n      shell: bash -x {0}\n      run: true\n", `shell: bash -x {0} is not supported`},
		{"    - uses: actions/setup-go@v6\n      with:\n        go-version: 1.26\n", `actions/setup-go's input go-version is not supported`},
		{"    - uses: actions/upload-artifact@v4\n      with:\n        path: r/*.json\n", `the artifact path "r/*.json" (more than one path, globs`},
	} {
		yml := "runs:\n  using: composite\n  steps:\n" + tc.step
		yml = "inputs:\n  greeting:\n    default: hi\n" + yml
		_, _, err := runAction(t, yml, nil, "")
		var se *StepError
		if !errors.As(err, &se) || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want a StepError with ErrUnsupported containing %q, got %v", tc.step, tc.want, err)
		}
	}
}

func TestLoadActionErrors(t *testing.T) {
	for _, tc := range []struct{ yml, want string }{
		{"runs:\n  using: node20\n", "composite"},
		{"runs:\n  using: composite\n  steps:\n    - run: true\n", "needs shell"},
		{"runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: true\n      timeout-minutes: 3\n", `action.yml:6: step: the key "timeout-minutes" is not supported`},
		{"runs:\n  using: composite\n  steps:\n    - id: a\n      shell: bash\n      run: true\n    - id: a\n      shell: bash\n      run: true\n", `action.yml:7: step id "a" is used twice`},
		{"inputs:\n  x:\n    defualt: 1\nruns:\n  using: composite\n", `action.yml:3: input x: the key "defualt"`},
		{"name: x\n", "no runs"},
		{"runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: true\n      continue-on-error: true\n", `the key "continue-on-error" is not supported`},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "action.yml")
		if err := os.WriteFile(p, []byte(tc.yml), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadAction(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: want an error containing %q, got %v", tc.yml, tc.want, err)
		}
	}
}

// TestProjectActionIsUnderstood: every expression in sysgate's own
// action.yml is one the dry run evaluates (without running a step).
func TestProjectActionIsUnderstood(t *testing.T) {
	a, err := LoadAction(filepath.Join(checkoutDir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := newJob(Config{Action: a, ActionDir: checkoutDir, Workspace: t.TempDir(), OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, failed := range []bool{false, true} {
		j.failed = failed
		sc := j.scope()
		for _, s := range a.Steps {
			texts := []string{s.Name, s.Run, s.WorkingDirectory}
			for _, kv := range append(append([]KeyValue{}, s.Env...), s.With...) {
				texts = append(texts, kv.Value)
			}
			for _, text := range texts {
				if _, err := sc.interpolate(text); err != nil {
					t.Errorf("action.yml:%d: step %s: %v", s.Line, s.Title(), err)
				}
			}
			if _, err := sc.condition(s.If); err != nil {
				t.Errorf("action.yml:%d: step %s: if: %v", s.Line, s.Title(), err)
			}
			if s.Uses != "" {
				name, err := actionName(s.Uses)
				if _, ok := simulatedActions[name]; err != nil || !ok {
					t.Errorf("action.yml:%d: step %s: uses %s is not simulated (%v)", s.Line, s.Title(), s.Uses, err)
				}
			}
		}
		for _, o := range a.Outputs {
			if _, err := sc.interpolate(o.Value); err != nil {
				t.Errorf("action.yml:%d: output %s: %v", o.Line, o.Name, err)
			}
		}
	}
}

const cacheAction = `
runs:
  using: composite
  steps:
    - id: cache
      uses: actions/cache/restore@0057852bfaa89a56745cba8c7296529d2fc39830
      with:
        path: ${{ github.workspace }}/thing
        key: thing-v1
    - id: build
      shell: bash
      run: |
        if [ -f "$GITHUB_WORKSPACE/thing/bin" ]; then echo "how=$(cat "$GITHUB_WORKSPACE/thing/bin")" >> "$GITHUB_OUTPUT"
        else mkdir -p "$GITHUB_WORKSPACE/thing" && echo built > "$GITHUB_WORKSPACE/thing/bin" && echo "how=built" >> "$GITHUB_OUTPUT"; fi
        rm -f "$GITHUB_WORKSPACE/thing/bin" && echo ${{ inputs.content }} > "$GITHUB_WORKSPACE/thing/bin"
    - shell: bash
      run: exit ${{ inputs.code }}
    - id: save
      if: ${{ steps.cache.outputs.cache-hit != 'true' || inputs.again == 'true' }}
      uses: actions/cache/save@0057852bfaa89a56745cba8c7296529d2fc39830
      with:
        path: ${{ github.workspace }}/thing
        key: thing-v1
inputs:
  code:
    default: "0"
  content:
    default: cached
  again:
    default: "false"
outputs:
  how:
    value: ${{ steps.build.outputs.how }}
  hit:
    value: ${{ steps.cache.outputs.cache-hit }}
`

// TestCacheAcrossRuns: actions/cache/save keeps the path under its key,
// and a later dry run (new runner directories) restores it with
// cache-hit=true; a miss leaves cache-hit unset, and an entry is never
// overwritten.
func TestCacheAcrossRuns(t *testing.T) {
	store := t.TempDir()
	r, _, err := runAction(t, cacheAction, map[string]string{"code": "1"}, store)
	if err != nil || r.Output("how") != "built" || r.Output("hit") != "" {
		t.Fatalf("first run: how=%q hit=%q err=%v", r.Output("how"), r.Output("hit"), err)
	}
	if s := r.Step("save"); s == nil || s.Outcome != Skipped {
		t.Errorf("a failed job went on to save the cache: %+v", s)
	}
	for i, want := range []struct{ how, hit, save string }{{"built", "", Success}, {"cached", "true", Skipped}} {
		r, _, err := runAction(t, cacheAction, nil, store)
		if err != nil || r.Job != Success || r.Output("how") != want.how || r.Output("hit") != want.hit {
			t.Errorf("run %d: job %s how=%q hit=%q err=%v; want how=%q hit=%q", i+2, r.Job, r.Output("how"), r.Output("hit"), err, want.how, want.hit)
		}
		if s := r.Step("save"); s == nil || s.Outcome != want.save {
			t.Errorf("run %d: save step %+v, want %s", i+2, s, want.save)
		}
	}
	r, _, err = runAction(t, cacheAction, map[string]string{"again": "true", "content": "overwritten"}, store)
	if s := r.Step("save"); err != nil || s.Outcome != Success || len(r.Annotations) != 1 || !strings.Contains(r.Annotations[0].Message, "never overwritten") {
		t.Errorf("saving an existing key again: want a warning and a successful step: %v %+v %+v", err, s, r.Annotations)
	}
	if r, _, err := runAction(t, cacheAction, nil, store); err != nil || r.Output("how") != "cached" {
		t.Errorf("the entry changed after a second save: how=%q, %v", r.Output("how"), err)
	}
}

// TestSimulatedActionsFail: the simulated actions fail where the real
// ones do, and the job's exit code is the first failed step's.
func TestSimulatedActionsFail(t *testing.T) {
	yml := `
inputs:
  path:
    default: missing
runs:
  using: composite
  steps:
    - id: upload
      uses: actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02
      with:
        path: ${{ inputs.path }}
        if-no-files-found: error
    - id: go
      if: always()
      uses: actions/setup-go@44694675825211faa026b3c33043df3e48a5fa00
      with:
        go-version-file: ${{ github.action_path }}/action.yml
    - id: after
      if: always()
      shell: sh
      run: exit 7
`
	r, _, err := runAction(t, yml, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Step("upload"); s.Outcome != Failure || !strings.Contains(s.Note, "no files were found") {
		t.Errorf("upload of nothing with if-no-files-found: error: %+v", s)
	}
	if s := r.Step("go"); s.Outcome != Success || s.Outputs["go-version"] == "" {
		t.Errorf("setup-go with go on PATH: %+v", s)
	}
	if r.Job != Failure || r.ExitCode != 1 {
		t.Errorf("job %s exit %d, want failure with the upload's 1 (the first failed step), not the last step's 7", r.Job, r.ExitCode)
	}

	// Without a go on PATH, setup-go fails and says how to fix it.
	path := writeAction(t, yml)
	a, err := LoadAction(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err = Run(context.Background(), Config{Action: a, ActionDir: filepath.Dir(path), Workspace: t.TempDir(), OutDir: t.TempDir(),
		Env: []string{"PATH=/nonexistent"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Step("go"); s.Outcome != Failure || !strings.Contains(s.Note, "install Go") {
		t.Errorf("setup-go without a go: %+v", s)
	}
}

func writeAction(t *testing.T, yml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "action.yml")
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMalformedOutputFailsStep: a GITHUB_OUTPUT line the runner cannot
// read fails the step that wrote it, as on GitHub.
func TestMalformedOutputFailsStep(t *testing.T) {
	r, _, err := runAction(t, "runs:\n  using: composite\n  steps:\n    - id: bad\n      shell: bash\n      run: echo garbage >> \"$GITHUB_OUTPUT\"\n", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Step("bad"); s.Outcome != Failure || !strings.Contains(s.Note, `GITHUB_OUTPUT: line 1: "garbage"`) {
		t.Errorf("step bad: %+v", s)
	}
}
