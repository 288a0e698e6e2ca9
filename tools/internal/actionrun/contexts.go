package actionrun

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// runnerArch is RUNNER_ARCH for GOARCH.
func runnerArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "X64"
	case "arm64":
		return "ARM64"
	case "386":
		return "X86"
	case "arm":
		return "ARM"
	}
	return strings.ToUpper(runtime.GOARCH)
}

func (j *job) setContexts() {
	gh := map[string]string{
		"action_path":       j.cfg.ActionDir,
		"action_ref":        "",
		"action_repository": "",
		"api_url":           "https://api.github.com",
		"job":               "dry-run",
		"server_url":        "https://github.com",
		"repository":        "local/" + filepath.Base(j.cfg.Workspace),
		"run_id":            "1",
		"token":             "",
		"workspace":         j.cfg.Workspace,
		"event_name":        "push",
	}
	for k, v := range j.cfg.Github {
		gh[strings.ToLower(k)] = v
	}
	j.github = map[string]Value{}
	for k, v := range gh {
		j.github[k] = stringValue(v)
	}
}

// runnerOS is the runner's OS the steps are told: a macOS or Windows
// runner's, to see what the action does there.
func (j *job) runnerOS() string {
	if j.cfg.RunnerOS == "" {
		return "Linux"
	}
	return j.cfg.RunnerOS
}

// CheckGithub reports a github context key the dry run does not know.
func CheckGithub(key string) error {
	switch strings.ToLower(key) {
	case "action_path", "action_ref", "action_repository", "api_url", "job", "server_url", "repository", "run_id", "token", "workspace", "event_name":
		return nil
	}
	return fmt.Errorf("github.%s: the dry run sets action_path, action_ref, action_repository, api_url, job, server_url, repository, run_id, token, workspace and event_name (github.event comes from --event)", key)
}

func (j *job) scope() *scope {
	return &scope{failed: j.failed, contexts: map[string]Value{
		"inputs": objectValue("inputs", true, j.inputs),
		"github": objectValue("github", true, j.github),
		"steps":  objectValue("steps", true, j.steps),
	}}
}

// githubEnv is what the runner puts in every step's environment.
func (j *job) githubEnv() []KeyValue {
	g := func(k string) string { return j.github[k].s }
	return []KeyValue{
		{"CI", "true"},
		{"GITHUB_ACTIONS", "true"},
		{"GITHUB_ACTION_PATH", j.cfg.ActionDir},
		{"GITHUB_ACTION_REF", g("action_ref")},
		{"GITHUB_ACTION_REPOSITORY", g("action_repository")},
		{"GITHUB_API_URL", g("api_url")},
		{"GITHUB_WORKSPACE", j.cfg.Workspace},
		{"GITHUB_JOB", g("job")},
		{"GITHUB_EVENT_NAME", g("event_name")},
		{"GITHUB_EVENT_PATH", j.eventPath},
		{"GITHUB_REPOSITORY", g("repository")},
		{"GITHUB_RUN_ID", g("run_id")},
		{"GITHUB_SERVER_URL", g("server_url")},
		{"RUNNER_OS", j.runnerOS()},
		{"RUNNER_ARCH", runnerArch()},
		{"RUNNER_TEMP", j.temp},
		{"RUNNER_TOOL_CACHE", j.cfg.ToolCache},
	}
}

// environ is a step's environment: the runner's, GitHub's variables, what
// earlier steps put in GITHUB_ENV and GITHUB_PATH, then the step's env.
func (j *job) environ(stepEnv []KeyValue, files []KeyValue) []string {
	m := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		m[k] = v
	}
	for _, e := range j.cfg.Env {
		if k, v, ok := strings.Cut(e, "="); ok {
			set(k, v)
		}
	}
	for _, list := range [][]KeyValue{j.githubEnv(), files, j.env, stepEnv} {
		for _, kv := range list {
			set(kv.Key, kv.Value)
		}
	}
	if len(j.path) > 0 {
		p := strings.Join(j.path, string(os.PathListSeparator))
		if m["PATH"] != "" {
			p += string(os.PathListSeparator) + m["PATH"]
		}
		set("PATH", p)
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+m[k])
	}
	return env
}

// lookPath finds a program on the PATH of env.
func lookPath(env []string, name string) (string, error) {
	path := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH %s", name, path)
}
