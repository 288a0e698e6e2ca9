package actionrun

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// simulated is an action the dry run stands in for: the with: keys it
// knows and what it does instead of the real action.
type simulated struct {
	with     []string
	required []string
	run      func(j *job, ctx context.Context, in usesCall, res *StepResult) error
}

// usesCall is one uses: step being run.
type usesCall struct {
	step Step
	with map[string]string
	env  []string // the step's environment (PATH from GITHUB_PATH included)
}

var simulatedActions = map[string]simulated{
	"actions/cache/restore": {
		with:     []string{"path", "key"},
		required: []string{"path", "key"},
		run:      (*job).cacheRestore,
	},
	"actions/cache/save": {
		with:     []string{"path", "key"},
		required: []string{"path", "key"},
		run:      (*job).cacheSave,
	},
	"actions/setup-go": {
		with: []string{"go-version-file", "cache"},
		run:  (*job).setupGo,
	},
	"actions/upload-artifact": {
		with:     []string{"name", "path", "if-no-files-found", "retention-days"},
		required: []string{"path"},
		run:      (*job).uploadArtifact,
	},
}

// actionName is the action a uses: names, without its @ref.
func actionName(uses string) (string, error) {
	if strings.HasPrefix(uses, "./") || strings.HasPrefix(uses, "docker://") {
		return "", unsupported("uses: %s (local and docker actions)", uses)
	}
	name, ref, ok := strings.Cut(uses, "@")
	if !ok || ref == "" {
		return "", fmt.Errorf("uses: %s has no @ref (pin a commit SHA)", uses)
	}
	return strings.ToLower(name), nil
}

func (j *job) uses(ctx context.Context, sc *scope, s Step, env []KeyValue, res *StepResult) error {
	stepErr := func(field string, err error) error {
		return &StepError{Action: j.cfg.Action.Path, Step: s, Field: field, Err: err}
	}
	name, err := actionName(s.Uses)
	if err != nil {
		return stepErr("uses", err)
	}
	sim, ok := simulatedActions[name]
	if !ok {
		return stepErr("uses", unsupported("uses: %s (it simulates %s)", s.Uses, strings.Join(slices.Sorted(maps.Keys(simulatedActions)), ", ")))
	}
	call := usesCall{step: s, with: map[string]string{}}
	for _, kv := range s.With {
		if !slices.Contains(sim.with, kv.Key) {
			return stepErr("with."+kv.Key, unsupported("%s's input %s", name, kv.Key))
		}
		v, err := sc.interpolate(kv.Value)
		if err != nil {
			return stepErr("with."+kv.Key, err)
		}
		call.with[kv.Key] = v
	}
	call.env = j.environ(env, nil)
	res.Outputs = map[string]string{}
	res.Outcome = Success
	j.checkActionCode(s.Uses, res)
	for _, r := range sim.required {
		if call.with[r] == "" {
			j.stepFailed(res, 1, fmt.Sprintf("%s: input required and not supplied: %s", name, r))
			return nil
		}
	}
	return sim.run(j, ctx, call, res)
}

// note says what a simulated action did, in the log and the result.
func (j *job) note(res *StepResult, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	j.logf("%s", msg)
	if res.Note != "" {
		res.Note += "; "
	}
	res.Note += msg
}

func (j *job) warn(res *StepResult, msg string) {
	j.logf("Warning: %s", msg)
	j.annotate(Annotation{Step: res.Name, Level: "warning", Message: msg})
}

// setupGo stands in for actions/setup-go: the dry run installs no Go. It
// passes when a Go on the step's PATH runs (the go command fetches the
// toolchain go.mod names by itself) and fails naming the fix otherwise.
func (j *job) setupGo(_ context.Context, in usesCall, res *StepResult) error {
	if f := in.with["go-version-file"]; f != "" {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(j.cfg.Workspace, p)
		}
		if _, err := os.Stat(p); err != nil {
			j.stepFailed(res, 1, fmt.Sprintf("actions/setup-go: go-version-file %s: %v", f, err))
			return nil
		}
	}
	goBin, err := lookPath(in.env, "go")
	var version []byte
	if err == nil {
		cmd := exec.Command(goBin, "env", "GOVERSION")
		cmd.Env = in.env
		version, err = cmd.Output()
	}
	if err != nil {
		j.stepFailed(res, 1, fmt.Sprintf("actions/setup-go is not simulated and no usable Go is on PATH (%v): "+
			"install Go 1.21+ (https://go.dev/dl) and put it on PATH, then run the dry run again", err))
		return nil
	}
	v := strings.TrimSpace(string(version))
	res.Outputs["go-version"] = strings.TrimPrefix(v, "go")
	j.note(res, "actions/setup-go: not simulated: %s (%s) is on PATH; on GitHub it installs the version in %s", v, goBin, in.with["go-version-file"])
	return nil
}
