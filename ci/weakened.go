package ci

import (
	"fmt"
	"slices"
	"strings"
)

// weakening is one way the gate was weaker (a WeakenedParts part) and
// the agents whose runs had it, named once however many runs had it: a
// resolver that cannot listen on port 53 weakens every run of a suite,
// and a suite of 36 agents must say so once, not 36 times.
type weakening struct {
	Part   string
	Agents []string
	// OnPurpose: every run with it belongs to a spec that also caught
	// something on purpose (a bite), which weakens the gate to show the
	// hole it closes: that is the spec's point, not an alarm.
	OnPurpose bool
}

// weakenings lists each part once, in run order.
func (r *Report) weakenings() []weakening {
	bites := map[string]bool{}
	for _, run := range r.Runs {
		if run.Expected && run.Spec != "" {
			bites[run.Spec] = true
		}
	}
	var out []weakening
	index := map[string]int{}
	for _, run := range r.Runs {
		for _, part := range WeakenedParts(run.Result) {
			i, ok := index[part]
			if !ok {
				i, index[part] = len(out), len(out)
				out = append(out, weakening{Part: part, OnPurpose: true})
			}
			w := &out[i]
			w.OnPurpose = w.OnPurpose && bites[run.Spec]
			if !slices.Contains(w.Agents, run.Agent) {
				w.Agents = append(w.Agents, run.Agent)
			}
		}
	}
	return out
}

// agentList names up to 5 agents, then how many more.
func agentList(agents []string) string {
	const shown = 5
	if len(agents) <= shown {
		return strings.Join(agents, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(agents[:shown], ", "), len(agents)-shown)
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
