package baseline

import (
	"errors"
	"fmt"
	"sort"
)

// RecordRuns says how often record runs the agent: Exact times, or until
// Quiet runs in a row add nothing to the file, at least Min times and at
// most Max. A single run misses what an agent does only sometimes (a
// retry, a timeout, a thread that lost a race); a gate on a pull request
// needs a recording that is stable after a handful of runs.
type RecordRuns struct {
	Exact, Min, Quiet, Max int
}

// DefaultRecordRuns: at least 3 runs, stop when 2 in a row add nothing,
// at most 10.
var DefaultRecordRuns = RecordRuns{Min: 3, Quiet: 2, Max: 10}

// ExactRuns is n runs, stable or not.
func ExactRuns(n int) RecordRuns { return RecordRuns{Exact: n} }

// Check refuses a policy that cannot run or never stops.
func (p RecordRuns) Check() error {
	switch {
	case p.Exact < 0:
		return fmt.Errorf("runs %d: want at least 1", p.Exact)
	case p.Exact > 0:
		return nil
	case p.Max < 1:
		return fmt.Errorf("max runs %d: want at least 1", p.Max)
	case p.Min > p.Max:
		return fmt.Errorf("max runs %d is below the %d runs a stable recording needs at least", p.Max, p.Min)
	case p.Quiet < 1:
		return fmt.Errorf("quiet runs %d: want at least 1", p.Quiet)
	}
	return nil
}

// Stability follows a recording run by run: what each run added to the
// file the runs before it would have written, and whether to run again.
type Stability struct {
	Policy RecordRuns
	// Runs so far; LastChange is the last run that added an entry (the
	// first run always does: it starts the file).
	Runs, LastChange int
	// Added are the entries each run added (Added[0] is run 2's: the
	// first run's are the whole file), sorted.
	Added [][]string
	have  map[string]bool
}

// NewStability starts a recording with policy p.
func NewStability(p RecordRuns) *Stability { return &Stability{Policy: p} }

// Next takes the entries of the file the runs so far would write
// (RecordedEntries, after merging the newest run) and says whether to
// run the agent again.
func (s *Stability) Next(entries map[string]bool) (again bool) {
	s.Runs++
	var added []string
	for e := range entries {
		if !s.have[e] {
			added = append(added, e)
		}
	}
	sort.Strings(added)
	if s.Runs == 1 || len(added) > 0 {
		s.LastChange = s.Runs
	}
	if s.Runs > 1 {
		s.Added = append(s.Added, added)
	}
	s.have = entries
	if p := s.Policy; p.Exact > 0 {
		return s.Runs < p.Exact
	}
	return !s.Stable() && s.Runs < s.Policy.Max
}

// Stable reports whether the recording stopped because runs added
// nothing: Quiet runs in a row after LastChange (with at least Min runs),
// or with Exact runs, the last one added nothing.
func (s *Stability) Stable() bool {
	p, quiet := s.Policy, s.Runs-s.LastChange
	if p.Exact > 0 {
		return quiet >= 1
	}
	return s.Runs >= p.Min && quiet >= p.Quiet
}

// LastAdded is what the last run that added anything added, after the
// first (nil when only the first run did).
func (s *Stability) LastAdded() []string {
	if s.LastChange < 2 {
		return nil
	}
	return s.Added[s.LastChange-2]
}

// RecordedEntries names the entries of the file FromObservation would
// write to path from o (as RareEntry names them): what Stability
// compares run by run. An observation with nothing beyond the bases
// gives none.
func RecordedEntries(path string, o *Observation, opts RecordOptions) (map[string]bool, error) {
	doc, _, err := FromObservation(path, o, opts)
	if errors.Is(err, errNothingRecorded) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	entries := map[string]bool{}
	for _, it := range doc.items() {
		entries[it.label] = true
	}
	return entries, nil
}

// Recording merges the runs of one recording and follows its stability:
// what record does between runs, for the CLI and for specs.
type Recording struct {
	*Stability
	// Merged holds every run added so far.
	Merged *Observation
	path   string
}

// NewRecording starts a recording with policy p of the file at path (the
// file the runs are written to, or any path: stability only compares
// what the runs would write there).
func NewRecording(p RecordRuns, path string) *Recording {
	return &Recording{Stability: NewStability(p), Merged: NewObservation(""), path: path}
}

// Add merges a conclusive run's observation and says whether to run the
// agent again; opts are how the runs are written (RecordedEntries).
func (r *Recording) Add(run *Observation, opts RecordOptions) (again bool, err error) {
	if err := r.Merged.Merge(run); err != nil {
		return false, fmt.Errorf("record run %d: %w", r.Runs+1, err)
	}
	if r.Policy.Exact == 1 {
		r.Runs++
		return false, nil
	}
	entries, err := RecordedEntries(r.path, r.Merged, opts)
	if err != nil {
		return false, err
	}
	return r.Next(entries), nil
}
