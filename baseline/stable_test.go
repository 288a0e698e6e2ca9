package baseline

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

// recordRun is one run's observation: the syscalls, files read and
// programs it saw.
func recordRun(syscalls []string, reads []string, programs ...string) *Observation {
	o := NewObservation("a")
	o.Runs = 1
	for _, s := range syscalls {
		o.Add(scmp.X86_64, s, 1)
	}
	o.Files = map[string]map[string]uint64{}
	for _, p := range reads {
		o.AddFile(p, FileRead, 1)
	}
	for _, p := range programs {
		o.AddProgram(p, 1)
	}
	return o
}

func TestSeenInCountsRunsAcrossMerges(t *testing.T) {
	runs := []*Observation{
		recordRun([]string{"read", "write"}, nil, "/usr/bin/agent"),
		recordRun([]string{"read", "write", "getpgid"}, []string{"/etc/x"}, "/usr/bin/agent"),
		recordRun([]string{"read", "write"}, nil, "/usr/bin/agent", "/usr/bin/git"),
	}
	merged := mergeAll(t, runs...)
	if merged.Runs != 3 {
		t.Fatalf("runs %d", merged.Runs)
	}
	pgid := ObservedKey{Kind: KeySyscall, Arch: scmp.X86_64, Name: "getpgid"}
	for k, want := range map[ObservedKey]int{
		pgid: 1, {Kind: KeyFile, Op: "read", Name: "/etc/x"}: 1, {Kind: KeyProgram, Name: "/usr/bin/git"}: 1,
		{Kind: KeySyscall, Arch: scmp.X86_64, Name: "read"}: 3, {Kind: KeyProgram, Name: "/usr/bin/agent"}: 3,
	} {
		if got := len(merged.RunsOf(k)); got != want {
			t.Errorf("%v seen in %d runs, want %d", k, got, want)
		}
	}
	if len(merged.SeenIn) != 3 {
		t.Errorf("seen_in holds %d keys, want the 3 seen in only some runs: %v", len(merged.SeenIn), merged.SeenIn)
	}
	// Merging a merged observation with one more run keeps counting.
	again := mergeAll(t, merged, recordRun([]string{"read", "write", "getpgid"}, nil, "/usr/bin/agent"))
	if got := len(again.RunsOf(pgid)); got != 2 || again.Runs != 4 {
		t.Errorf("after a fourth run: getpgid in %d of %d runs, want 2 of 4", got, again.Runs)
	}
	// A run's projection holds what it saw.
	if r := merged.Run(merged.RunsOf(pgid)[0]); r.Count(scmp.X86_64, "getpgid") == 0 || r.Runs != 1 || r.Files == nil {
		t.Errorf("run projection %v", r)
	}
	// The file round-trips, and a seen_in entry the observation cannot
	// hold is refused.
	path := filepath.Join(t.TempDir(), "obs.json")
	writeAndRead := func(o *Observation) (*Observation, error) {
		if err := WriteObservation(path, o); err != nil {
			t.Fatal(err)
		}
		return ReadObservation(path)
	}
	back, err := writeAndRead(merged)
	if err != nil || !reflect.DeepEqual(back.SeenIn, merged.SeenIn) {
		t.Errorf("round trip: %v, %v vs %v", err, back.SeenIn, merged.SeenIn)
	}
	bad := mergeAll(t, merged)
	bad.SeenIn[pgid] = []int{4}
	if _, err := writeAndRead(bad); err == nil || !strings.Contains(err.Error(), "seen_in") {
		t.Errorf("run 4 of 3 read without error: %v", err)
	}
}

func TestRecordNotesRareEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	merged := mergeAll(t,
		recordRun([]string{"read"}, []string{"/srv/data/a"}),
		recordRun([]string{"read", "getpgid"}, []string{"/srv/data/a", "/srv/rare"}),
		recordRun([]string{"read"}, []string{"/srv/data/a"}),
	)
	res, err := WriteRecorded(path, merged, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rare []string
	for _, r := range res.Rare {
		rare = append(rare, r.String())
	}
	if want := []string{"x86_64 getpgid (1 of 3 runs)", "read /srv/rare (1 of 3 runs)"}; !reflect.DeepEqual(rare, want) {
		t.Errorf("rare %q, want %q", rare, want)
	}
	data := readFile(t, path)
	for _, line := range []string{"- getpgid # seen in 1 of 3 record runs\n", "- /srv/rare # seen in 1 of 3 record runs\n", "- read\n"} {
		if !strings.Contains(data, line) {
			t.Errorf("written file lacks %q:\n%s", line, data)
		}
	}
	// A second recording whose runs all needed the entries keeps the
	// notes as they are: the diff does not churn.
	all := mergeAll(t,
		recordRun([]string{"read", "getpgid"}, []string{"/srv/data/a", "/srv/rare"}),
		recordRun([]string{"read", "getpgid"}, []string{"/srv/data/a", "/srv/rare"}),
	)
	res, err = WriteRecorded(path, all, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again := readFile(t, path); again != data || len(res.Rare) != 0 {
		t.Errorf("second recording changed the file or found rare entries %v:\n%s", res.Rare, again)
	}
	// In a third, read is rare but was there before: listed, not noted.
	third := mergeAll(t,
		recordRun([]string{"read", "getpgid"}, []string{"/srv/data/a", "/srv/rare"}),
		recordRun([]string{"getpgid"}, []string{"/srv/data/a", "/srv/rare"}),
	)
	res, err = WriteRecorded(path, third, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rare) != 1 || res.Rare[0].Entry != "x86_64 read" || res.Rare[0].Added {
		t.Errorf("third recording: rare %+v", res.Rare)
	}
	if !strings.Contains(readFile(t, path), "- read\n") {
		t.Errorf("an existing entry got a note:\n%s", readFile(t, path))
	}
}

// A glob written for names that differ per run is needed by every run,
// though each name was seen once.
func TestRareGlobCountsRunsNotNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	var runs []*Observation
	for _, name := range []string{"a", "b", "c"} {
		runs = append(runs, recordRun([]string{"read"}, []string{"{workspace}/out-" + name}))
	}
	res, err := WriteRecorded(path, mergeAll(t, runs...), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rare) != 0 || res.Runs != 3 {
		t.Errorf("rare %v in %d runs, want none in 3:\n%s", res.Rare, res.Runs, readFile(t, path))
	}
}

func TestStabilityStopsWhenRunsAddNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	// What each run saw; run 4 meets a rare path.
	seen := [][]string{{"read"}, {"read"}, {"read", "write"}, {"read"}, {"read"}, {"read"}}
	s := NewStability(DefaultRecordRuns)
	merged := NewObservation("a")
	for i, calls := range seen {
		if err := merged.Merge(recordRun(calls, nil)); err != nil {
			t.Fatal(err)
		}
		entries, err := RecordedEntries(path, merged, RecordOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Next(entries) {
			if i+1 != 5 {
				t.Errorf("stopped after run %d, want 5 (run 3 added write, 4 and 5 nothing)", i+1)
			}
			break
		}
	}
	if !s.Stable() || s.LastChange != 3 || !reflect.DeepEqual(s.LastAdded(), []string{"x86_64 write"}) {
		t.Errorf("stable %v, last change %d, added %q", s.Stable(), s.LastChange, s.LastAdded())
	}

	for _, tc := range []struct {
		name    string
		policy  RecordRuns
		changes []bool // whether each run adds an entry
		runs    int
		stable  bool
	}{
		{"nothing new", DefaultRecordRuns, []bool{true, false, false}, 3, true},
		{"at least min", RecordRuns{Min: 3, Quiet: 1, Max: 10}, []bool{true, false, false}, 3, true},
		{"never stable", RecordRuns{Min: 3, Quiet: 2, Max: 4}, []bool{true, true, false, true}, 4, false},
		{"exact", ExactRuns(2), []bool{true, false}, 2, true},
		{"exact, last added", ExactRuns(2), []bool{true, true}, 2, false},
		{"one run", ExactRuns(1), []bool{true}, 1, false},
	} {
		s := NewStability(tc.policy)
		entries := map[string]bool{}
		for i, change := range tc.changes {
			if change {
				entries = cloneSet(entries)
				entries[string(rune('a'+i))] = true
			}
			again := s.Next(entries)
			if last := i == len(tc.changes)-1; again == last {
				t.Errorf("%s: after run %d again=%v", tc.name, i+1, again)
			}
		}
		if s.Runs != tc.runs || s.Stable() != tc.stable {
			t.Errorf("%s: %d runs, stable %v; want %d, %v", tc.name, s.Runs, s.Stable(), tc.runs, tc.stable)
		}
	}
	for _, bad := range []RecordRuns{{Exact: -1}, {Max: 0}, {Min: 5, Quiet: 1, Max: 4}, {Min: 1, Max: 3}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func cloneSet(m map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// Shards of two arches merge into one observation: a syscall only one
// arch makes is needed by every run on that arch, not rare.
func TestRareSyscallsCountRunsOfTheirArch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	arm := NewObservation("a")
	arm.Runs = 1
	arm.Add(scmp.AArch64, "read", 1)
	res, err := WriteRecorded(path, mergeAll(t, recordRun([]string{"read"}, nil), recordRun([]string{"read"}, nil), arm), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rare) != 0 {
		t.Errorf("rare across arches: %v", res.Rare)
	}
}
