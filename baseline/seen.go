package baseline

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/sysgate/sysgate/internal/scmp"
)

// ObservedKey names one thing an observation holds: a syscall (with its
// argument class) on an arch, a program, a file access or a network
// call. Kind is "syscall", "program", "file" or "network".
type ObservedKey struct {
	Kind KeyKind   `json:"kind"`
	Arch scmp.Arch `json:"arch,omitempty"` // syscall
	Op   string    `json:"op,omitempty"`   // file: the access; network: the call
	Name string    `json:"name"`           // syscall key, program, path or destination key
	By   string    `json:"by,omitempty"`   // network: the program
}

// KeyKind is what an ObservedKey names.
type KeyKind string

// The kinds of ObservedKey.
const (
	KeySyscall KeyKind = "syscall"
	KeyProgram KeyKind = "program"
	KeyFile    KeyKind = "file"
	KeyNetwork KeyKind = "network"
)

// SeenIn holds, for each key seen in only some of an observation's runs,
// those runs (numbered from 1 in the order they were merged, sorted). A
// key it does not hold was seen in every run: an observation of one run
// has none, and merging observations fills it (Observation.Merge).
type SeenIn map[ObservedKey][]int

type seenEntry struct {
	ObservedKey
	Runs []int `json:"runs"`
}

// MarshalJSON writes a sorted list, so observation files diff well.
func (s SeenIn) MarshalJSON() ([]byte, error) {
	list := make([]seenEntry, 0, len(s))
	for k, runs := range s {
		list = append(list, seenEntry{k, runs})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].less(list[j].ObservedKey) })
	return json.Marshal(list)
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (s *SeenIn) UnmarshalJSON(data []byte) error {
	var list []seenEntry
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*s = SeenIn{}
	for _, e := range list {
		(*s)[e.ObservedKey] = e.Runs
	}
	return nil
}

func (k ObservedKey) less(o ObservedKey) bool {
	if k.Kind != o.Kind {
		return k.Kind < o.Kind
	}
	if a, b := k.Arch.String(), o.Arch.String(); a != b {
		return a < b
	}
	if k.Op != o.Op {
		return k.Op < o.Op
	}
	if k.Name != o.Name {
		return k.Name < o.Name
	}
	return k.By < o.By
}

// Keys returns every key the observation holds, sorted.
func (o *Observation) Keys() []ObservedKey {
	if o == nil {
		return nil
	}
	var keys []ObservedKey
	for arch, m := range o.Syscalls {
		for name := range m {
			keys = append(keys, ObservedKey{Kind: KeySyscall, Arch: arch, Name: name})
		}
	}
	for p := range o.Programs {
		keys = append(keys, ObservedKey{Kind: KeyProgram, Name: p})
	}
	for op, m := range o.Files {
		for p := range m {
			keys = append(keys, ObservedKey{Kind: KeyFile, Op: op, Name: p})
		}
	}
	for op, byDest := range o.Network {
		for dest, byProg := range byDest {
			for prog := range byProg {
				keys = append(keys, ObservedKey{Kind: KeyNetwork, Op: op, Name: dest, By: prog})
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	return keys
}

// count returns how often the observation saw k; has false when it holds
// no such key.
func (o *Observation) count(k ObservedKey) (n uint64, has bool) {
	switch k.Kind {
	case KeySyscall:
		n, has = o.Syscalls[k.Arch][k.Name]
	case KeyProgram:
		n, has = o.Programs[k.Name]
	case KeyFile:
		n, has = o.Files[k.Op][k.Name]
	case KeyNetwork:
		n, has = o.Network[k.Op][k.Name][k.By]
	}
	return n, has
}

// RunsOf returns the runs (from 1) that saw k: those SeenIn lists, else
// every run when the observation holds k, else none.
func (o *Observation) RunsOf(k ObservedKey) []int {
	if runs, ok := o.SeenIn[k]; ok {
		return runs
	}
	if _, has := o.count(k); !has {
		return nil
	}
	runs := make([]int, o.Runs)
	for i := range runs {
		runs[i] = i + 1
	}
	return runs
}

// mergeSeen computes the SeenIn of o merged with other, before their
// counts and runs are added: other's runs follow o's. A key seen in no
// run (an observation that counts none) is left out, as if seen in every
// run: a file without runs cannot say what is rare.
func (o *Observation) mergeSeen(other *Observation) SeenIn {
	total := o.Runs + other.Runs
	seen := SeenIn{}
	for _, k := range mergedKeys(o, other) {
		runs := slices.Clone(o.RunsOf(k))
		for _, r := range other.RunsOf(k) {
			runs = append(runs, o.Runs+r)
		}
		if len(runs) > 0 && len(runs) < total {
			seen[k] = runs
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return seen.canonical(total)
}

// canonical numbers the runs by what they saw (the sorted keys each run
// saw of those not seen in every run, compared in order), so that the
// same runs merged in any order give the same file: Merge stays
// commutative and associative, as shards need.
func (s SeenIn) canonical(total int) SeenIn {
	saw := make([][]ObservedKey, total+1)
	for k, runs := range s {
		for _, r := range runs {
			saw[r] = append(saw[r], k)
		}
	}
	order := make([]int, total)
	for i := range order {
		order[i] = i + 1
		slices.SortFunc(saw[i+1], compareKeys)
	}
	slices.SortStableFunc(order, func(a, b int) int { return slices.CompareFunc(saw[a], saw[b], compareKeys) })
	number := make([]int, total+1)
	for i, r := range order {
		number[r] = i + 1
	}
	out := SeenIn{}
	for k, runs := range s {
		renumbered := make([]int, len(runs))
		for i, r := range runs {
			renumbered[i] = number[r]
		}
		slices.Sort(renumbered)
		out[k] = renumbered
	}
	return out
}

func compareKeys(a, b ObservedKey) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

func mergedKeys(a, b *Observation) []ObservedKey {
	keys := append(a.Keys(), b.Keys()...)
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	return slices.Compact(keys)
}

// Run returns what run r (from 1) of the observation saw: the keys it
// saw, with the merged counts (how often one run made a call is not
// kept), the runs' programs' contents, runtimes and environment. A
// section the observation watched stays watched (files, network) even
// when run r saw nothing of it.
func (o *Observation) Run(r int) *Observation {
	one := NewObservation(o.Agent)
	one.Runs = 1
	one.Incremental = o.Incremental
	one.ProgramSHA256, one.RuntimePrograms, one.Environment = o.ProgramSHA256, o.RuntimePrograms, o.Environment
	if o.Files != nil {
		one.Files = map[string]map[string]uint64{}
	}
	if o.Network != nil {
		one.Network = map[string]map[string]map[string]uint64{}
	}
	for _, k := range o.Keys() {
		if !slices.Contains(o.RunsOf(k), r) {
			continue
		}
		n, _ := o.count(k)
		switch k.Kind {
		case KeySyscall:
			one.Add(k.Arch, k.Name, n)
		case KeyProgram:
			one.AddProgram(k.Name, n)
		case KeyFile:
			op, _ := ParseFileOp(k.Op)
			one.AddFile(k.Name, op, n)
		case KeyNetwork:
			d, err := ParseDestination(k.Name)
			if err != nil {
				continue // checkNetwork refuses such a file
			}
			op, _ := ParseNetOp(k.Op)
			one.AddNetwork(op, d, k.By, n)
		}
	}
	return one
}

// checkSeen refuses a SeenIn entry the observation cannot hold: a key it
// does not have, or runs outside 1..Runs, unsorted or repeated.
func (o *Observation) checkSeen() error {
	for k, runs := range o.SeenIn {
		if _, has := o.count(k); !has {
			return fmt.Errorf("observation: seen_in: %s %q is not in the observation", k.Kind, k.Name)
		}
		for i, r := range runs {
			if r < 1 || r > o.Runs || (i > 0 && r <= runs[i-1]) {
				return fmt.Errorf("observation: seen_in: %s %q: runs %v are not sorted runs of 1..%d", k.Kind, k.Name, runs, o.Runs)
			}
		}
	}
	return nil
}
