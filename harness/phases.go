package harness

import "time"

// WithPhaseTimes calls fn once per phase of the run, in order, with how
// long the phase took: where a run's fixed cost goes (make bench prints
// it; `SYSGATE_PHASES=1 sysgate check ...` prints it to stderr). fn runs
// on Run's goroutine and must be quick.
func WithPhaseTimes(fn func(phase string, d time.Duration)) Option {
	return func(c *runConfig) { c.phases = fn }
}

// Phases of a run, as WithPhaseTimes names them.
const (
	PhaseEnvironment = "environment" // waiting for the machine and command to be read (envahead.go)
	PhaseCompile     = "compile"     // baselines loaded, validated and compiled to BPF
	PhasePrepare     = "prepare"     // privileges, environment, fences, isolation probes
	PhaseAudit       = "audit"       // audit tuning and the shared stream (audit backend)
	PhaseSpawn       = "spawn"       // the launcher until it waits for the go-ahead
	PhaseListen      = "listen"      // listener, claim and subscription, until the go-ahead
	PhaseAgent       = "agent"       // the go-ahead until the run's last process is gone
	PhaseBarrier     = "barrier"     // every record of the run in (audit), the listener closed
	PhaseResult      = "result"      // the result decided: diff, programs, verdict
	PhaseRelease     = "release"     // claim, listener, pidfds and audit tuning given back
)

// phaseClock reports the time since its last mark under each mark's name.
type phaseClock struct {
	fn   func(string, time.Duration)
	last time.Time
}

func newPhaseClock(fn func(string, time.Duration)) *phaseClock {
	return &phaseClock{fn: fn, last: time.Now()}
}

func (c *phaseClock) mark(phase string) {
	if c.fn == nil {
		return
	}
	now := time.Now()
	c.fn(phase, now.Sub(c.last))
	c.last = now
}
