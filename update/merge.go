package update

import (
	"fmt"
	"slices"

	"github.com/sysgate/sysgate/baseline"
)

// MergeObservations reads observation files from any number of shards and
// arches and merges them per agent: counts and runs add up, so the result
// does not depend on the order or grouping of the files.
func MergeObservations(paths ...string) (map[string]*baseline.Observation, error) {
	merged := map[string]*baseline.Observation{}
	for _, path := range paths {
		o, err := baseline.ReadObservation(path)
		if err != nil {
			return nil, err
		}
		if o.Agent == "" {
			return nil, fmt.Errorf("merge observations: %s names no agent", path)
		}
		m := merged[o.Agent]
		if m == nil {
			m = baseline.NewObservation(o.Agent)
			merged[o.Agent] = m
		}
		if err := m.Merge(o); err != nil {
			return nil, fmt.Errorf("merge observations %s: %w", path, err)
		}
	}
	return merged, nil
}

// sortedAgents returns the keys of an agent map, sorted.
func sortedAgents[V any](m map[string]V) []string {
	agents := make([]string, 0, len(m))
	for a := range m {
		agents = append(agents, a)
	}
	slices.Sort(agents)
	return agents
}
