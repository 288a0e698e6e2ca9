package scmp

import (
	"sort"
	"strconv"
	"sync"
)

//go:generate go run ./internal/mktables

// Syscall is one syscall of an arch's table: its number and name.
type Syscall struct {
	Number int
	Name   string
}

// generated holds each arch's table, by the arch's name, as its
// zsyscalls_<arch>_table.go registers it: the syscalls libseccomp names in
// the probe ranges (see LibseccompSyscalls), and that libseccomp's
// version. The tables register themselves so that this package, and
// with it the generator, builds without them.
var generated = map[string]generatedTable{}

type generatedTable struct {
	from     string
	syscalls []Syscall
}

func register(arch, from string, syscalls []Syscall) {
	generated[arch] = generatedTable{from, syscalls}
}

type table struct {
	byNumber map[int]string
	byName   map[string]int
	names    []string
}

var (
	tablesMu sync.Mutex
	tables   = map[Arch]*table{}
)

// tableFor indexes a's generated table on first use.
func tableFor(a Arch) *table {
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t, ok := tables[a]; ok {
		return t
	}
	t := &table{byNumber: map[int]string{}, byName: map[string]int{}}
	if a.Valid() {
		for _, s := range generated[a.String()].syscalls {
			t.byNumber[s.Number] = s.Name
			t.byName[s.Name] = s.Number
			t.names = append(t.names, s.Name)
		}
		sort.Strings(t.names)
	}
	tables[a] = t
	return t
}

// Name returns the syscall name for nr on arch a, or ok=false when the
// table (libseccomp's, generated) does not know the number.
func Name(a Arch, nr int) (name string, ok bool) {
	name, ok = tableFor(a).byNumber[nr]
	return name, ok
}

// NameOrNumber returns the syscall name, or the decimal number for a
// syscall the table cannot name (a raw syscall(1000), say).
func NameOrNumber(a Arch, nr int) string {
	if name, ok := Name(a, nr); ok {
		return name
	}
	return strconv.Itoa(nr)
}

// Number returns the syscall number of name on arch a.
func Number(a Arch, name string) (nr int, ok bool) {
	nr, ok = tableFor(a).byName[name]
	return nr, ok
}

// Names returns every syscall name the table knows for a, sorted. The
// slice is shared: do not modify it.
func Names(a Arch) []string { return tableFor(a).names }

// Closest returns the known name on arch a nearest to name by edit
// distance, for "did you mean" hints; "" when nothing is close.
func Closest(a Arch, name string) string {
	best, bestDist := "", len(name)/2+2
	for _, candidate := range Names(a) {
		if d := editDistance(name, candidate, bestDist); d < bestDist {
			best, bestDist = candidate, d
		}
	}
	return best
}

// editDistance is Levenshtein distance, giving up (returning limit) once
// every path exceeds limit.
func editDistance(a, b string, limit int) int {
	if abs(len(a)-len(b)) >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ClosestOf returns the candidate nearest to name by edit distance, for
// "did you mean" hints outside the syscall table; "" when nothing is close.
func ClosestOf(name string, candidates []string) string {
	best, bestDist := "", len(name)/2+2
	for _, candidate := range candidates {
		if d := editDistance(name, candidate, bestDist); d < bestDist {
			best, bestDist = candidate, d
		}
	}
	return best
}
