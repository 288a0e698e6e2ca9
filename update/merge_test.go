package update

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/baseline"
)

func mergedJSON(t *testing.T, paths ...string) string {
	t.Helper()
	m, err := MergeObservations(paths...)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMergeIsOrderIndependentAndAssociative merges the shards of two arches
// in every order, and in two groupings through intermediate files (as a
// tree of merge jobs would): the result is the same.
func TestMergeIsOrderIndependentAndAssociative(t *testing.T) {
	shards := updateShards()
	paths := writeShards(t, shards...)
	want := mergedJSON(t, paths...)

	permute(len(paths), func(order []int) {
		p := make([]string, len(order))
		for i, j := range order {
			p[i] = paths[j]
		}
		if got := mergedJSON(t, p...); got != want {
			t.Errorf("order %v: %s\nwant %s", order, got, want)
		}
	})

	// (s0 s1) s2 vs s0 (s1 s2), per agent, through files on disk.
	left := mergeToFile(t, paths[0], paths[2]) // two mcp-filesystem... and node shards
	right := mergeToFile(t, paths[2], paths[4])
	got1 := mergedJSON(t, append(left, paths[1], paths[3], paths[4])...)
	got2 := mergedJSON(t, append(right, paths[0], paths[1], paths[3])...)
	if got1 != want || got2 != want {
		t.Errorf("groupings differ:\n(a b) c: %s\na (b c): %s\nflat:    %s", got1, got2, want)
	}

	// And the counts really add up.
	m, _ := MergeObservations(paths...)
	if runs := m["mcp-filesystem"].Runs; runs != 6 {
		t.Errorf("mcp-filesystem runs = %d, want 6", runs)
	}
}

// mergeToFile merges paths and writes one observation file per agent.
func mergeToFile(t *testing.T, paths ...string) []string {
	t.Helper()
	m, err := MergeObservations(paths...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out []string
	for agent, o := range m {
		p := filepath.Join(dir, agent+".json")
		if err := baseline.WriteObservation(p, o); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// permute calls fn with every permutation of 0..n-1 (Heap's algorithm).
func permute(n int, fn func([]int)) {
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	var gen func(k int)
	gen = func(k int) {
		if k == 1 {
			fn(append([]int(nil), a...))
			return
		}
		for i := 0; i < k; i++ {
			gen(k - 1)
			if k%2 == 0 {
				a[i], a[k-1] = a[k-1], a[i]
			} else {
				a[0], a[k-1] = a[k-1], a[0]
			}
		}
	}
	gen(n)
}

func TestMergeRefusesMixedAgentFile(t *testing.T) {
	mixed := baseline.NewObservation("a")
	if err := mixed.MergeAllowMixed(baseline.NewObservation("b")); err != nil {
		t.Fatal(err)
	}
	paths := writeShards(t, baseline.NewObservation("a"), mixed)
	if _, err := MergeObservations(paths...); !errors.Is(err, baseline.ErrAgentMismatch) {
		t.Errorf("merging a mixed-agent file: err = %v, want ErrAgentMismatch", err)
	}
}
