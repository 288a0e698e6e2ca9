package harness

import (
	"slices"
	"testing"
	"time"

	"github.com/sysgate/sysgate/verdict"
)

// Every phase is reported once per run, release included, so that make
// bench's table accounts for the whole of Run; the environment is read
// beside the compile and reported where the run waited for it.
func TestPhaseTimesCoverTheRun(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		var names []string
		var sum time.Duration
		start := time.Now()
		mustRun(t, Agent{Command: []string{"/bin/true"}}, WithBaselines(path), WithBackend(backend),
			WithPhaseTimes(func(phase string, d time.Duration) {
				names = append(names, phase)
				sum += d
			}))
		whole := time.Since(start)
		want := []string{PhaseEnvironment, PhaseCompile, PhasePrepare, PhaseAudit, PhaseSpawn, PhaseListen,
			PhaseAgent, PhaseBarrier, PhaseResult, PhaseRelease}
		got := slices.Clone(names)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: phases %v, want each of %v once", backend, names, want)
		}
		if names[len(names)-1] != PhaseRelease {
			t.Errorf("%s: last phase %s, want %s", backend, names[len(names)-1], PhaseRelease)
		}
		if sum > whole {
			t.Errorf("%s: phases sum to %v, more than the run's %v", backend, sum, whole)
		}
	}
}
