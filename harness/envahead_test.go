package harness

import (
	"maps"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/runenv"
	"github.com/sysgate/sysgate/verdict"
)

// A stack without layers does not wait for the environment before it
// compiles (envahead.go), but the run still reports the environment read
// before it: the same selector and runtimes as a probe made here.
func TestUnlayeredRunStillReportsItsEnvironment(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	agent := Agent{Command: []string{"/bin/true"}}
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		r := mustRun(t, agent, WithBaselines(path), WithBackend(backend))
		if r.Verdict != verdict.VerdictClean {
			t.Fatalf("%s: %s", backend, summary(r))
		}
		want := baseline.SelectorFor(scmp.Native(), runenv.CommandEnvironment(agent.Command, agent.Env, agent.Dir, ""))
		if !maps.Equal(r.Selector, want) {
			t.Errorf("%s: selector %v, want %v", backend, r.Selector, want)
		}
		if r.Environment == nil || len(r.Environment.Kernel) == 0 {
			t.Errorf("%s: no environment in the result: %+v", backend, r.Environment)
		}
	}
}
