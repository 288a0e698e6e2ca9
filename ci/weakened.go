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
		w := weakenedRun{Agent: run.Agent, Banner: WeakenedBanner(run.Result)}
		if w.Banner != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// droppedEnv lists, sorted and once, the variables any run kept from its
// agent (names only).
func (r *Report) droppedEnv() []string {
	var names []string
	for _, run := range r.Runs {
		for _, n := range run.DroppedEnv {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// backends lists, once each in run order, the backends the runs used.
func (r *Report) backends() []string {
	var out []string
	for _, run := range r.Runs {
		if b := BackendText(run.Result); !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}
