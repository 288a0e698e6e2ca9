package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

// Issue 33, item 4: the agent keeps the environment it needs. Under sudo
// (Debian's env_reset) the step's environment never reached sysgate, so
// an agent's API key never reached the agent. The job runs as a non-root
// user with sudo; the agent prints the lengths of what it got.

const printEnv = `import os
for name in ["OPENAI_API_KEY", "FROM_FILE", "ACTIONS_RUNTIME_TOKEN"]:
    print(f"env {name} length {len(os.environ.get(name, ''))}")
`

func TestAgentKeepsTheEnvironmentItNeeds(t *testing.T) {
	e := newDryRunEnv(t)
	auditctltest.HoldTuning(t)
	u := testutil.RequireSudoUser(t)
	ws := filepath.Join(e.base, "agent")
	writeFiles(t, ws, map[string]string{"env.py": printEnv, "agent.env": "# the agent's settings\nFROM_FILE=abcde\n"})
	gitRepo(t, ws)
	command := []string{"command=" + python + " env.py", "baselines=env.yaml", "agent=env", "mode=record"}
	// Root fills the build cache the job's user restores.
	if j := e.run(t, runOpts{dir: ws, inputs: command}); j.code != 0 {
		t.Fatalf("record as root: exit %d\n%s", j.code, j.log)
	}
	if err := chownTreeTo(ws, int(u.UID), int(u.GID)); err != nil {
		t.Fatal(err)
	}
	// The key and a runner credential are in every step's environment,
	// as a workflow's env: puts them there.
	env := append(jobUserEnv(t, e, u), "OPENAI_API_KEY=sk-0123456789", "ACTIONS_RUNTIME_TOKEN=runtime-token")
	run := func(t *testing.T, more ...string) string {
		t.Helper()
		w := newJobWorld(t, e, u, strings.NewReplacer("/", "-", "=", "-", " ", "-").Replace(t.Name()))
		j := e.run(t, runOpts{dir: ws, action: w.action, out: w.out, asUser: int(u.UID), asGroup: int(u.GID), env: env,
			inputs: append(append([]string{}, command...), more...)})
		if j.code != 0 {
			t.Fatalf("exit %d, want 0", j.code)
		}
		return grepLines(j.stepLog(t, j.step(t, "gate")), "env ")
	}
	t.Run("without", func(t *testing.T) {
		got := run(t)
		for _, want := range []string{"env OPENAI_API_KEY length 0", "env ACTIONS_RUNTIME_TOKEN length 0"} {
			if !strings.Contains(got, want) {
				t.Errorf("without pass-env: want %q in:\n%s", want, got)
			}
		}
	})
	t.Run("pass-env", func(t *testing.T) {
		got := run(t, "pass-env=OPENAI_*", "env-file=agent.env")
		for _, want := range []string{"env OPENAI_API_KEY length 13", "env FROM_FILE length 5", "env ACTIONS_RUNTIME_TOKEN length 0"} {
			if !strings.Contains(got, want) {
				t.Errorf("with pass-env OPENAI_* and env-file: want %q in:\n%s", want, got)
			}
		}
	})
}
