package baseline

import (
	"fmt"
	"sort"
	"strings"
)

// AddFile counts n accesses op of path (absolute, or symbolic: see
// FileContext.Abstract). Any call makes the observation one that saw
// files, even with n 0.
func (o *Observation) AddFile(path string, op FileOp, n uint64) {
	if o.Files == nil {
		o.Files = map[string]map[string]uint64{}
	}
	m := o.Files[op.String()]
	if m == nil {
		m = map[string]uint64{}
		o.Files[op.String()] = m
	}
	m[path] += n
}

// ObservesFiles reports whether the runs watched files at all: only then
// does the observation say which files entries went unused.
func (o *Observation) ObservesFiles() bool { return o != nil && o.Files != nil }

// FileList returns the observed accesses sorted by access, then path.
func (o *Observation) FileList() []ObservedFile {
	if o == nil {
		return nil
	}
	var out []ObservedFile
	for name, m := range o.Files {
		op, _ := ParseFileOp(name)
		for p, n := range m {
			out = append(out, ObservedFile{Path: p, Op: op, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Op != out[j].Op {
			return out[i].Op < out[j].Op
		}
		return out[i].Path < out[j].Path
	})
	return out
}

func (o *Observation) mergeFiles(other *Observation) {
	if other.Files != nil && o.Files == nil {
		o.Files = map[string]map[string]uint64{}
	}
	for _, f := range other.FileList() {
		o.AddFile(f.Path, f.Op, f.Count)
	}
}

// checkFiles refuses an access name this sysgate does not know and a
// path that is neither absolute nor symbolic, as for syscalls: a file
// from a newer sysgate should not lose data silently.
func (o *Observation) checkFiles() error {
	for name, m := range o.Files {
		if _, ok := ParseFileOp(name); !ok {
			return fmt.Errorf("observation: files: unknown access %q (known: read, write, exec, delete)", name)
		}
		for p := range m {
			if cleanObserved(p) != p {
				return fmt.Errorf("observation: files: %q is not an absolute, clean path", p)
			}
		}
	}
	return nil
}

// writeFiles lists the files in String: "read: /etc/hosts×2 {tmp}/x×1".
func (o *Observation) writeFiles(b *strings.Builder) {
	last := FileOp(0)
	for _, f := range o.FileList() {
		if f.Op != last {
			fmt.Fprintf(b, "\n  files %s:", f.Op)
			last = f.Op
		}
		fmt.Fprintf(b, " %s×%d", f.Path, f.Count)
	}
}
