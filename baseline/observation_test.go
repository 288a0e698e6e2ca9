package baseline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func obs(agent string, runs int, counts map[scmp.Arch]map[string]uint64) *Observation {
	o := NewObservation(agent)
	o.Runs = runs
	for arch, m := range counts {
		for name, n := range m {
			o.Add(arch, name, n)
		}
	}
	return o
}

func mergeAll(t *testing.T, list ...*Observation) *Observation {
	t.Helper()
	out := NewObservation("")
	for _, o := range list {
		if err := out.Merge(o); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestMergeIsAssociativeAndOrderIndependent(t *testing.T) {
	a := obs("agent", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 3, "write": 1}})
	b := obs("agent", 2, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "1000": 2}, scmp.AArch64: {"openat": 5}})
	c := obs("", 1, map[scmp.Arch]map[string]uint64{scmp.I386: {"getuid32": 1}, scmp.X86_64: {"close": 7}})
	want := obs("agent", 4, map[scmp.Arch]map[string]uint64{
		scmp.X86_64: {"read": 4, "write": 1, "1000": 2, "close": 7}, scmp.AArch64: {"openat": 5}, scmp.I386: {"getuid32": 1},
	})
	// The runs are numbered by what they saw, whatever the merge order:
	// b's two runs (aarch64 first), c's, then a's.
	sys := func(arch scmp.Arch, name string) ObservedKey {
		return ObservedKey{Kind: KeySyscall, Arch: arch, Name: name}
	}
	want.SeenIn = SeenIn{
		sys(scmp.X86_64, "read"): {1, 2, 4}, sys(scmp.X86_64, "write"): {4}, sys(scmp.X86_64, "1000"): {1, 2},
		sys(scmp.AArch64, "openat"): {1, 2}, sys(scmp.I386, "getuid32"): {3}, sys(scmp.X86_64, "close"): {3},
	}
	orders := [][]*Observation{{a, b, c}, {c, b, a}, {b, a, c}, {c, a, b}}
	for _, order := range orders {
		if got := mergeAll(t, order...); !reflect.DeepEqual(got, want) {
			t.Errorf("merge order %v: got %+v, want %+v", []string{order[0].Agent, order[1].Agent, order[2].Agent}, got, want)
		}
	}
	// (a+b)+c == a+(b+c)
	left := mergeAll(t, mergeAll(t, a, b), c)
	right := mergeAll(t, a, mergeAll(t, b, c))
	if !reflect.DeepEqual(left, right) {
		t.Errorf("not associative: %+v vs %+v", left, right)
	}
	// Inputs are unchanged by being merged.
	if a.Count(scmp.X86_64, "read") != 3 || a.Runs != 1 {
		t.Errorf("merge modified its argument: %+v", a)
	}
}

func TestMergeRefusesOtherAgent(t *testing.T) {
	a := obs("alpha", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	b := obs("beta", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"write": 1}})
	if err := a.Merge(b); !errors.Is(err, ErrAgentMismatch) {
		t.Fatalf("merge of other agent: %v", err)
	}
	if a.Count(scmp.X86_64, "write") != 0 || a.Runs != 1 {
		t.Errorf("refused merge still changed the observation: %+v", a)
	}
	mixed := obs("gamma", 0, nil)
	for _, o := range []*Observation{a, b} {
		if err := mixed.MergeAllowMixed(o); err != nil {
			t.Fatal(err)
		}
	}
	if mixed.Agent != "alpha,beta,gamma" || mixed.Runs != 2 {
		t.Errorf("mixed merge: %+v", mixed)
	}
}

func TestObservationJSONRoundTripAndAtomicWrite(t *testing.T) {
	o := obs("agent", 3, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 4, "1000": 2}, scmp.AArch64: {"openat": 5}})
	path := filepath.Join(t.TempDir(), "obs.json")
	if err := os.WriteFile(path, []byte("old content that must be replaced whole"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeAndReadObservation(t, path, o, `{
  "agent": "agent",
  "runs": 3,
  "syscalls": {
    "aarch64": {
      "openat": 5
    },
    "x86_64": {
      "1000": 2,
      "read": 4
    }
  }
}
`)
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("rewrite changed the file mode to %v", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	for _, bad := range []string{
		`{"agent":"a","runs":1,"syscalls":{"amd64":{"read":1}}}`,
		`{"agent":"a","extra":1}`,
		`{"agent":"a","runs":-1}`,
		`{"agent":"a","syscalls":{"x86_64":{"no such call":1}}}`,
		`{"agent":"a","syscalls":{"aarch64":{"open":1}}}`,
	} {
		if _, err := DecodeObservation([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	empty, _ := json.Marshal(NewObservation("x"))
	if string(empty) != `{"agent":"x","runs":0,"syscalls":{}}` {
		t.Errorf("empty observation encodes as %s", empty)
	}
}

func TestObservationString(t *testing.T) {
	o := obs("agent", 2, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 12, "close": 1}, scmp.AArch64: {"openat": 3}})
	want := "observation of \"agent\", 2 runs\n  aarch64: openat×3\n  x86_64: close×1 read×12"
	if got := o.GomegaString(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// writeAndReadObservation writes o to path, compares the file with want
// and reads it back as o.
func writeAndReadObservation(t *testing.T, path string, o *Observation, want string) {
	t.Helper()
	if err := WriteObservation(path, o); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("JSON layout:\n%s\nwant:\n%s", data, want)
	}
	back, err := ReadObservation(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, o) {
		t.Errorf("round trip: %+v vs %+v", back, o)
	}
}
