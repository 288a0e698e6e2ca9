package verdict

import "github.com/sysgate/sysgate/baseline"

// Drift compares the environment of a check or enforce run with the one
// its baselines were recorded in (baseline.CompareEnvironments).
type Drift struct {
	// Recorded: the baselines carry a fingerprint for the run's arch.
	// Without one, drift cannot be told apart from a behaviour change.
	Recorded bool                 `json:"recorded"`
	Changes  []baseline.EnvChange `json:"changes,omitempty"`
}

// Same reports whether the run's environment matches the recorded one.
func (d *Drift) Same() bool { return d != nil && d.Recorded && len(d.Changes) == 0 }
