package harness

import (
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// noteEnvironment records where the run ran: into the observation (a
// record run writes it into the baseline), and for a check or enforce run
// against baselines, how it differs from theirs and which layers are
// missing.
//
// Runtimes' paths are written from the run's placeholders (a pyenv under
// {home}), and a recorded one is read the same way, so a baseline
// recorded by another user, or by an older sysgate, compares equal.
func noteEnvironment(r *verdict.Result, env baseline.Environment, profile *baseline.Profile, mode baseline.Mode, places baseline.FileContext) {
	if env.IsZero() {
		return
	}
	env = env.Abstract(places)
	r.Environment = &env
	if r.Observed != nil {
		r.Observed.AddEnvironment(r.Arch, env)
	}
	if profile == nil || mode == baseline.ModeRecord {
		return
	}
	recorded, ok := profile.Environment(r.Arch)
	r.Drift = &verdict.Drift{Recorded: ok}
	if ok {
		r.Drift.Changes = baseline.CompareEnvironments(recorded.Abstract(places), env)
	}
	r.Unrecorded = profile.Unrecorded()
}
