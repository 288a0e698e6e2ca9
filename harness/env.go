package harness

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// ErrPassEnv is returned (wrapped) by Run for a WithEnvFilter pattern
// that path.Match cannot parse: bad input.
var ErrPassEnv = errors.New("bad --pass-env pattern")

// DroppedVariable is a variable the agent does not get by default, and why.
type DroppedVariable struct {
	Name   string
	Reason string
}

// DroppedEnv is the one list of variables an agent does not inherit: the
// CLI's run verbs, the embedded suites (make security-test) and a library
// run with Agent.Env nil all drop them. WithEnvFilter (--pass-env) passes
// one back; an explicit Agent.Env (--env-file) sets one on purpose.
var DroppedEnv = []DroppedVariable{
	{"ACTIONS_RUNTIME_TOKEN", "GitHub Actions runtime token: writes the job's cache and artifacts (cache poisoning)"},
	{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GitHub OIDC: requests an identity token for the job's cloud roles"},
	{"ACTIONS_ID_TOKEN_REQUEST_URL", "GitHub OIDC: where identity tokens are requested"},
	{"ACTIONS_CACHE_URL", "GitHub Actions cache service, used with the runtime token"},
	{"ACTIONS_RESULTS_URL", "GitHub Actions results service (artifacts, cache v2), used with the runtime token"},
	{"GITHUB_TOKEN", "GitHub API token of the workflow, when a step exports it"},
	{"CI_JOB_TOKEN", "GitLab job token: the API, registry and packages as the job"},
	{"SYSTEM_ACCESSTOKEN", "Azure Pipelines OAuth token of the build"},
	{"GITHUB_OUTPUT", "workflow-command file: forges this step's outputs"},
	{"GITHUB_ENV", "workflow-command file: injects environment into later steps"},
	{"GITHUB_PATH", "workflow-command file: puts a directory first on later steps' PATH"},
	{"GITHUB_STATE", "workflow-command file: forges an action's saved state"},
	{"GITHUB_STEP_SUMMARY", "workflow-command file: forges the job summary"},
}

// ValidatePassEnv checks WithEnvFilter patterns (path.Match syntax).
func ValidatePassEnv(patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("%w: %q: %v", ErrPassEnv, p, err)
		}
	}
	return nil
}

// FilterEnv removes the DroppedEnv variables from env, except those whose
// name matches one of pass (path.Match), and returns the rest with the
// sorted names it removed. Values never leave this function.
func FilterEnv(env, pass []string) (kept, dropped []string, err error) {
	if err := ValidatePassEnv(pass); err != nil {
		return nil, nil, err
	}
	kept = make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !isDropped(name) || passed(name, pass) {
			kept = append(kept, kv)
			continue
		}
		if !slices.Contains(dropped, name) {
			dropped = append(dropped, name)
		}
	}
	slices.Sort(dropped)
	return kept, dropped, nil
}

func isDropped(name string) bool {
	return slices.ContainsFunc(DroppedEnv, func(d DroppedVariable) bool { return d.Name == name })
}

func passed(name string, pass []string) bool {
	return slices.ContainsFunc(pass, func(p string) bool {
		ok, _ := path.Match(p, name)
		return ok
	})
}

// agentEnv is the environment the agent gets: an explicit Agent.Env as
// given unless the caller asked for the filter; else the caller's own
// environment, filtered.
func (c *runConfig) agentEnv(env []string) (kept, dropped []string, err error) {
	if env != nil && !c.filterEnv {
		return env, nil, nil
	}
	if env == nil {
		env = os.Environ()
	}
	return FilterEnv(env, c.passEnv)
}
