package actionrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Config is one dry run: the action, where it runs, and its inputs.
type Config struct {
	Action    *Action
	ActionDir string            // GITHUB_ACTION_PATH: the action's checkout
	Workspace string            // GITHUB_WORKSPACE: the repository the job checked out
	Inputs    map[string]string // the with: of the step that uses the action
	OutDir    string            // runner temp, artifacts, the step summary, logs, dry-run.json
	ToolCache string            // RUNNER_TOOL_CACHE ("": OutDir/tool-cache, empty like a hosted runner's)
	CacheDir  string            // where actions/cache keeps its entries across dry runs
	Github    map[string]string // github context values over the defaults (job, repository, action_ref, event_name, ...)
	Event     string            // the event's payload, a JSON file (github.event, GITHUB_EVENT_PATH); "": {}
	Env       []string          // the environment the runner gives every step (KEY=VALUE)
	RunnerOS  string            // runner.os and RUNNER_OS ("": Linux); the steps still run here
	Stdout    io.Writer         // the job's log: each step's output and the dry run's notes
}

// Step outcomes and conclusions, as steps.<id>.outcome names them.
const (
	Success = "success"
	Failure = "failure"
	Skipped = "skipped"
)

// StepResult is how one step ended.
type StepResult struct {
	Index      int               `json:"index"`
	ID         string            `json:"id,omitempty"`
	Name       string            `json:"name"`
	Line       int               `json:"line"`
	Outcome    string            `json:"outcome"`    // success, failure, skipped
	Conclusion string            `json:"conclusion"` // the outcome after continue-on-error
	ExitCode   int               `json:"exit_code"`
	Note       string            `json:"note,omitempty"` // why a step was skipped, what a simulated action did
	Outputs    map[string]string `json:"outputs,omitempty"`
	Log        string            `json:"log,omitempty"` // the file holding the step's output
}

// Result is the job after the dry run: GitHub's view of it.
type Result struct {
	Job         string       `json:"job"` // success or failure
	ExitCode    int          `json:"exit_code"`
	Steps       []StepResult `json:"steps"`
	Outputs     []KeyValue   `json:"outputs"`
	Annotations []Annotation `json:"annotations"`
	Summary     string       `json:"summary"`   // the job summary: every step's GITHUB_STEP_SUMMARY
	Artifacts   string       `json:"artifacts"` // uploaded artifacts, one directory each
	// Env and Path are what the job's steps put in GITHUB_ENV and
	// GITHUB_PATH: what every later step of the job would see.
	Env  []KeyValue `json:"env"`
	Path []string   `json:"path"`
	// TamperedActions are uses: actions' code files under _actions that
	// changed before their step ran (a runner would have run the change).
	TamperedActions []string `json:"tampered_actions,omitempty"`
}

// Output returns the action's output name ("" when unset).
func (r *Result) Output(name string) string {
	for _, kv := range r.Outputs {
		if kv.Key == name {
			return kv.Value
		}
	}
	return ""
}

// Step returns the result of the step with id, or nil.
func (r *Result) Step(id string) *StepResult {
	for i := range r.Steps {
		if r.Steps[i].ID == id {
			return &r.Steps[i]
		}
	}
	return nil
}

// StepError is an error of the dry run itself in one step: an expression
// it does not understand, a uses: it cannot simulate. It stops the dry run
// (exit 125 in cmd/action-dry-run), so it cannot pass for a verdict.
type StepError struct {
	Action string
	Step   Step
	Field  string
	Err    error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("%s:%d: step %q: %s: %v", e.Action, e.Step.Line, e.Step.Title(), e.Field, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// job is the state of one dry run.
type job struct {
	cfg        Config
	inputs     map[string]Value
	github     map[string]Value
	steps      map[string]Value // by id; null until the step ran
	failed     bool
	env        []KeyValue // GITHUB_ENV, in the order set
	path       []string   // GITHUB_PATH, most recent first
	temp       string
	eventPath  string // GITHUB_EVENT_PATH
	summary    string
	artifacts  string
	logs       string
	actions    string            // the runner's _actions directory
	actionCode map[string]string // laid-out action code file -> its sha256
	result     Result
	annotate   func(Annotation)
}

// Run executes the action's steps as GitHub's runner would and returns the
// job's result. The error is the dry run's own (bad input, an unsupported
// expression or action); a failing step is a failed Result, not an error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	j, err := newJob(cfg)
	if err != nil {
		return nil, err
	}
	for i, s := range cfg.Action.Steps {
		if err := ctx.Err(); err != nil {
			return &j.result, fmt.Errorf("interrupted before step %d: %w", i+1, err)
		}
		if err := j.step(ctx, i+1, s); err != nil {
			return &j.result, err
		}
	}
	j.result.Env, j.result.Path = append([]KeyValue{}, j.env...), append([]string{}, j.path...)
	sc := j.scope()
	for _, o := range cfg.Action.Outputs {
		v, err := sc.interpolate(o.Value)
		if err != nil {
			return &j.result, fmt.Errorf("%s:%d: output %s: %w", cfg.Action.Path, o.Line, o.Name, err)
		}
		j.result.Outputs = append(j.result.Outputs, KeyValue{o.Name, v})
	}
	j.result.Job = Success
	if j.failed {
		j.result.Job = Failure
		for _, s := range j.result.Steps {
			if s.Conclusion == Failure {
				j.result.ExitCode = max(s.ExitCode, 1)
				break
			}
		}
	}
	return &j.result, nil
}

func newJob(cfg Config) (*job, error) {
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	for _, d := range []*string{&cfg.ActionDir, &cfg.Workspace, &cfg.OutDir} {
		abs, err := filepath.Abs(*d)
		if err != nil {
			return nil, err
		}
		*d = abs
	}
	if fi, err := os.Stat(cfg.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s: not a directory", cfg.Workspace)
	}
	j := &job{cfg: cfg, steps: map[string]Value{}}
	j.temp = filepath.Join(cfg.OutDir, "runner-temp")
	j.artifacts = filepath.Join(cfg.OutDir, "artifacts")
	j.logs = filepath.Join(cfg.OutDir, "logs")
	j.summary = filepath.Join(cfg.OutDir, "step-summary.md")
	if j.cfg.ToolCache == "" {
		j.cfg.ToolCache = filepath.Join(cfg.OutDir, "tool-cache")
	}
	j.actions = actionsDir(cfg.ActionDir, cfg.OutDir)
	for _, d := range []string{j.temp, j.logs, j.cfg.ToolCache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(j.summary, nil, 0o644); err != nil {
		return nil, err
	}
	j.result = Result{Summary: j.summary, Artifacts: j.artifacts, Steps: []StepResult{}, Annotations: []Annotation{}}
	j.annotate = func(a Annotation) { j.result.Annotations = append(j.result.Annotations, a) }
	if err := j.setInputs(); err != nil {
		return nil, err
	}
	j.setContexts()
	if err := j.setEvent(); err != nil {
		return nil, err
	}
	if err := j.layOutActions(); err != nil {
		return nil, err
	}
	for _, s := range cfg.Action.Steps {
		if s.ID != "" {
			j.steps[strings.ToLower(s.ID)] = null
		}
	}
	return j, nil
}

// setInputs gives every input its value: the one passed, else the
// default. An input action.yml does not declare is an error, as GitHub
// warns about it and the value goes nowhere.
func (j *job) setInputs() error {
	a := j.cfg.Action
	j.inputs = map[string]Value{}
	known := map[string]bool{}
	var names []string
	for _, in := range a.Inputs {
		known[strings.ToLower(in.Name)] = true
		names = append(names, in.Name)
		j.inputs[strings.ToLower(in.Name)] = stringValue(in.Default)
	}
	given := make([]string, 0, len(j.cfg.Inputs))
	for k := range j.cfg.Inputs {
		given = append(given, k)
	}
	sort.Strings(given)
	for _, k := range given {
		if !known[strings.ToLower(k)] {
			return fmt.Errorf("input %q: %s has no such input (it has %s)", k, a.Path, strings.Join(names, ", "))
		}
		j.inputs[strings.ToLower(k)] = stringValue(j.cfg.Inputs[k])
	}
	for _, in := range a.Inputs {
		if in.Required && j.inputs[strings.ToLower(in.Name)].s == "" {
			return fmt.Errorf("input %q is required (%s:%d)", in.Name, a.Path, in.Line)
		}
	}
	return nil
}

func (j *job) logf(format string, args ...any) {
	fmt.Fprintf(j.cfg.Stdout, format+"\n", args...)
}

// step runs one step: its if:, then run: or the simulated uses:.
func (j *job) step(ctx context.Context, index int, s Step) error {
	path := j.cfg.Action.Path
	sc := j.scope()
	fail := func(field string, err error) error {
		return &StepError{Action: path, Step: s, Field: field, Err: err}
	}
	res := StepResult{Index: index, ID: s.ID, Name: s.Title(), Line: s.Line}
	if s.Name != "" {
		name, err := sc.interpolate(s.Name)
		if err != nil {
			return fail("name", err)
		}
		res.Name = name
	}
	cond := s.If
	run, err := sc.condition(cond)
	if err != nil {
		return fail(fmt.Sprintf("if: %q", cond), err)
	}
	if !run {
		res.Outcome, res.Conclusion = Skipped, Skipped
		res.Note = "if: " + strings.TrimSpace(cond)
		if cond == "" {
			res.Note = "an earlier step failed"
		}
		j.logf("── %d. %s: skipped (%s)", index, res.Name, res.Note)
		j.record(s, res)
		return nil
	}
	var env []KeyValue
	for _, kv := range s.Env {
		v, err := sc.interpolate(kv.Value)
		if err != nil {
			return fail("env."+kv.Key, err)
		}
		env = append(env, KeyValue{kv.Key, v})
	}
	j.logf("── %d. %s", index, res.Name)
	if s.Run != "" {
		err = j.runScript(ctx, sc, s, env, &res)
	} else {
		err = j.uses(ctx, sc, s, env, &res)
	}
	if err != nil {
		var se *StepError
		if errors.As(err, &se) {
			return err
		}
		return fail(map[bool]string{true: "run", false: "uses"}[s.Run != ""], err)
	}
	res.Conclusion = res.Outcome // no continue-on-error: action.yml has none
	j.failed = j.failed || res.Outcome == Failure
	status := res.Outcome
	if res.Outcome == Failure {
		status = fmt.Sprintf("failure (exit %d)", res.ExitCode)
	}
	j.logf("── %d. %s: %s", index, res.Name, status)
	j.record(s, res)
	return nil
}

// record adds the step's result to the job and, for a step with an id,
// to the steps context.
func (j *job) record(s Step, res StepResult) {
	j.result.Steps = append(j.result.Steps, res)
	if s.ID == "" {
		return
	}
	outs := map[string]Value{}
	for k, v := range res.Outputs {
		outs[k] = stringValue(v)
	}
	j.steps[strings.ToLower(s.ID)] = objectValue("steps."+s.ID, true, map[string]Value{
		"outputs":    objectValue("steps."+s.ID+".outputs", false, outs),
		"outcome":    stringValue(res.Outcome),
		"conclusion": stringValue(res.Conclusion),
	})
}
