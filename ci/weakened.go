package ci

import "slices"

// weakenedRun is one agent whose runs kept capabilities (--keep-cap).
type weakenedRun struct {
	Agent, Banner string
}

// weakenedRuns lists each agent and banner once, in run order: a suite
// runs one agent many times with the same options.
func (r *Report) weakenedRuns() []weakenedRun {
	var out []weakenedRun
	for _, run := range r.Runs {
		w := weakenedRun{Agent: run.Agent, Banner: run.CapabilityBanner()}
		if w.Banner != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
