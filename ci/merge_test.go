package ci

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
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

func TestReportObservationsLeaveOutBitesAndInconclusiveRuns(t *testing.T) {
	obs := func(agent string, names ...string) *baseline.Observation {
		o := baseline.NewObservation(agent)
		o.Runs = 1
		for _, n := range names {
			o.Add(scmp.X86_64, n, 1)
		}
		return o
	}
	r, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite,
		spec{text: "a", failed: "violation", result: &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation,
			Arch: scmp.X86_64, Observed: obs("py", "statx")}},
		spec{text: "b", result: &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Observed: obs("py")}},
		spec{text: "bite", result: &verdict.Result{Agent: "py-bite", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation,
			Arch: scmp.X86_64, Observed: obs("py-bite", "unshare")}},
		spec{text: "lossy", failed: "lost", result: &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictInconclusive,
			Arch: scmp.X86_64, Observed: obs("py", "ptrace")}},
	))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := r.Observations(false); err != nil || len(m) != 0 {
		t.Errorf("check runs taken without checkRuns: %v %v", m, err)
	}
	m, err := r.Observations(true)
	if err != nil {
		t.Fatal(err)
	}
	// A check run logs only what its baselines lack: an update from it
	// must keep what it did not see, as one from an incremental record.
	if len(m) != 1 || m["py"] == nil || m["py"].Runs != 2 || m["py"].Count(scmp.X86_64, "statx") != 1 || m["py"].Count(scmp.X86_64, "ptrace") != 0 ||
		!m["py"].Incremental {
		data, _ := json.Marshal(m)
		t.Errorf("observations: %s", data)
	}
}

// TestReportObservationsRefuseAnExecMismatch: a run whose exec ran
// another program than it named stops the update; a bite that asserted
// one is left out as every bite is.
func TestReportObservationsRefuseAnExecMismatch(t *testing.T) {
	mismatch := []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/curl", Requested: "/bin/true"},
		Mismatch: "the exec named /bin/true; the kernel ran /usr/bin/curl"}}
	obs := baseline.NewObservation("py")
	obs.Runs = 1
	obs.Add(scmp.X86_64, "read", 1)
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeRecord, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Observed: obs,
		ProgramViolations: mismatch}
	bite, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite, spec{text: "swaps a path", result: res}))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := bite.Observations(false); err != nil || len(m) != 0 {
		t.Errorf("a bite: %v %v", m, err)
	}
	r, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite, spec{text: "records", failed: "violation", result: res}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Observations(false); !errors.Is(err, ErrExecMismatch) || !strings.Contains(err.Error(), "/usr/bin/curl") {
		t.Errorf("err = %v, want ErrExecMismatch naming the program", err)
	}
}
