package ci

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// trustJob is the part of a job the trust rules read.
type trustJob struct {
	Permissions map[string]string `yaml:"permissions"`
	RunsOn      any               `yaml:"runs-on"`
	Timeout     any               `yaml:"timeout-minutes"`
	Uses        string            `yaml:"uses"`
	Steps       []trustStep       `yaml:"steps"`
}

type trustStep struct {
	ID   string            `yaml:"id"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]any    `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// cacheActions restore something another run saved: a job that writes, or
// holds a secret, must not run what they bring back (cache poisoning).
var cacheActions = regexp.MustCompile(`^actions/(setup-go|cache|cache/restore)@`)

// trustProblems checks one workflow (data, named name) against the rules
// that keep what a pull request or an earlier run controls away from the
// jobs that can write: every checkout keeps no credential and names no
// github.head_ref; no job that writes, mints an OIDC token or reads a
// secret restores a cache or sets up Go.
func trustProblems(name string, data []byte) []string {
	var wf struct {
		Jobs map[string]yaml.Node `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, name+": "+fmt.Sprintf(format, args...)) }
	for _, jobName := range slices.Sorted(maps.Keys(wf.Jobs)) {
		node := wf.Jobs[jobName]
		var job trustJob
		if err := node.Decode(&job); err != nil {
			bad("job %s: %v", jobName, err)
			continue
		}
		raw, _ := yaml.Marshal(&node)
		privileged := strings.Contains(string(raw), "secrets.")
		for _, level := range job.Permissions {
			privileged = privileged || level == "write"
		}
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") {
				if v, ok := s.With["persist-credentials"]; !ok || v != false {
					bad("job %s: actions/checkout without persist-credentials: false", jobName)
				}
				if ref, _ := s.With["ref"].(string); strings.Contains(ref, "head_ref") {
					bad("job %s: checkout ref %s names github.head_ref (check out the pull request's head SHA)", jobName, ref)
				}
			}
			// A local action (the sysgate action among them) may restore
			// a cache inside: the rule cannot see into it, so it is out too.
			if privileged && (cacheActions.MatchString(s.Uses) || strings.HasPrefix(s.Uses, "./")) {
				bad("job %s: writes or holds a secret and runs %s", jobName, s.Uses)
			}
		}
	}
	slices.Sort(problems)
	return problems
}

func TestWorkflowTrust(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if len(files) < len(wantWorkflows) {
		t.Fatalf(".github/workflows: found only %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range trustProblems(filepath.Base(f), data) {
			t.Error(p)
		}
	}
	// The rules can fail: the deliberately bad workflow trips each one.
	data, err := os.ReadFile("testdata/workflows/untrusted.yml")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(trustProblems("untrusted.yml", data), "\n")
	for _, w := range []string{
		"job update: actions/checkout without persist-credentials: false",
		"job update: checkout ref ${{ github.head_ref }} names github.head_ref",
		"job update: writes or holds a secret and runs actions/setup-go@",
		"job release: writes or holds a secret and runs actions/cache/restore@",
		"job token: writes or holds a secret and runs actions/cache@",
		"job token: writes or holds a secret and runs ./.sysgate",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("untrusted.yml: no %q in\n%s", w, got)
		}
	}
}

// baselineUpdateJobs reads the reusable baseline-update workflow's jobs.
func baselineUpdateJobs(t *testing.T) (map[string]trustJob, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "sysgate-baseline-update.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]trustJob `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	return wf.Jobs, string(data)
}

// TestBaselineUpdateRunsWhereTheCallerSays: every job of the reusable
// workflow runs on the caller's runners (a repository without GitHub's
// hosted runners names its own) with a timeout the caller sets; the
// writer pushes with GIT_TOKEN, not a credential its checkout kept; and
// nothing in it names github.head_ref.
func TestBaselineUpdateRunsWhereTheCallerSays(t *testing.T) {
	jobs, text := baselineUpdateJobs(t)
	for _, name := range []string{"target", "record", "build", "update", "unlabel"} {
		job, ok := jobs[name]
		if !ok {
			t.Errorf("no job %s", name)
			continue
		}
		runsOn := fmt.Sprint(job.RunsOn)
		if !strings.Contains(runsOn, "inputs.runners") && runsOn != "${{ matrix.runner }}" {
			t.Errorf("job %s: runs-on %s does not come from inputs.runners", name, runsOn)
		}
		if to := fmt.Sprint(job.Timeout); !regexp.MustCompile(`^\$\{\{ inputs\.[a-z-]+-timeout-minutes \}\}$`).MatchString(to) {
			t.Errorf("job %s: timeout-minutes %s is not an input", name, to)
		}
	}
	if strings.Contains(text, "head_ref") {
		t.Error("sysgate-baseline-update.yml names github.head_ref: for a fork it is a branch name this repository may also have")
	}
	open := false
	for _, s := range jobs["update"].Steps {
		if s.ID == "open" {
			open = s.Env["GIT_TOKEN"] != "" && s.Env["BASE_BRANCH"] == "${{ needs.target.outputs.base-branch }}"
		}
	}
	if !open {
		t.Error("the update job's open step gets no GIT_TOKEN or does not target needs.target.outputs.base-branch")
	}
}

// TestBaselineUpdateTarget runs the target job's script, as the runner
// would, for each kind of event: the labelled pull request's head SHA is
// what every job checks out, and a fork's pull request is refused unless
// allow-fork-pull-requests is true.
func TestBaselineUpdateTarget(t *testing.T) {
	jobs, _ := baselineUpdateJobs(t)
	var script string
	var env map[string]string
	for _, s := range jobs["target"].Steps {
		if s.ID == "target" {
			script, env = s.Run, s.Env
		}
	}
	if script == "" {
		t.Fatal("no step target in the target job")
	}
	const head = "1111111111111111111111111111111111111111"
	pr := map[string]string{"PR_NUMBER": "7", "PR_HEAD_SHA": head, "PR_HEAD_REF": "feature", "PR_BASE_REF": "main",
		"PR_HEAD_REPO": "owner/repo", "REPOSITORY": "owner/repo", "SHA": "2222222222222222222222222222222222222222", "REF_NAME": "7/merge"}
	with := func(over map[string]string) map[string]string {
		m := map[string]string{"ALLOW_FORKS": "false"}
		for k, v := range pr {
			m[k] = v
		}
		for k, v := range over {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name   string
		env    map[string]string
		fail   string // the refusal's text; "" when it succeeds
		output string
	}{
		{"same repository", with(nil), "", "sha=" + head + "\nbase-branch=feature\nbot-branch=\n"},
		{"fork refused", with(map[string]string{"PR_HEAD_REPO": "evil/repo", "PR_HEAD_REF": "main"}), "comes from the fork evil/repo: refused", ""},
		{"fork allowed", with(map[string]string{"PR_HEAD_REPO": "evil/repo", "PR_HEAD_REF": "main", "ALLOW_FORKS": "true"}), "",
			"sha=" + head + "\nbase-branch=main\nbot-branch=sysgate/baseline-update/pr-7\n"},
		{"dispatch", map[string]string{"SHA": "3333333333333333333333333333333333333333", "REF_NAME": "dev", "ALLOW_FORKS": "false"}, "",
			"sha=3333333333333333333333333333333333333333\nbase-branch=dev\nbot-branch=\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "output")
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "GITHUB_OUTPUT=" + out}
			for k := range env {
				cmd.Env = append(cmd.Env, k+"="+c.env[k])
			}
			log, err := cmd.CombinedOutput()
			got, _ := os.ReadFile(out)
			if c.fail != "" {
				if err == nil || !strings.Contains(string(log), c.fail) || len(got) != 0 {
					t.Errorf("want a refusal %q, got err %v, outputs %q:\n%s", c.fail, err, got, log)
				}
				return
			}
			if err != nil || string(got) != c.output {
				t.Errorf("err %v, outputs\n%s\nwant\n%s\nlog:\n%s", err, got, c.output, log)
			}
		})
	}
}
