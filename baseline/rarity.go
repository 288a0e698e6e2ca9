package baseline

import (
	"fmt"
	"path/filepath"
)

// RareEntry is an entry of a recorded file that only some of the
// observation's runs needed: what a reviewer should know may be missing
// from a recording of fewer runs, and what a check may still meet for
// the first time.
type RareEntry struct {
	// Entry names it as reports do: "x86_64 clock_nanosleep", "program
	// /usr/bin/git", "read /tmp/x", "connect 127.0.0.1:80 by /usr/bin/curl".
	Entry string `json:"entry"`
	Seen  int    `json:"seen"` // runs that needed it
	Runs  int    `json:"runs"` // runs recorded
	// Added: record added the entry, with a RareNote on its line.
	Added bool   `json:"added,omitempty"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

// String is "x86_64 clock_nanosleep (2 of 5 runs)".
func (r RareEntry) String() string { return fmt.Sprintf("%s (%d of %d runs)", r.Entry, r.Seen, r.Runs) }

// RareNote is the line comment record puts on an entry it adds that
// only some runs needed. Record writes it once, when it adds the entry,
// and keeps the line as it is afterwards (as it keeps every comment), so
// a later recording does not churn the diff; a reviewer may drop it.
func RareNote(seen, runs int) string {
	return fmt.Sprintf("# seen in %d of %d record runs", seen, runs)
}

// docItem is one entry of a document: its name in reports, its line and
// its line comment.
type docItem struct {
	label, arch string // arch: a syscall entry's
	line        int
	lineComment *string
}

// items lists d's syscalls, programs, files and network entries.
func (d *Document) items() []docItem {
	if d == nil {
		return nil
	}
	var out []docItem
	for i := range d.Syscalls {
		sec := &d.Syscalls[i]
		for j := range sec.Entries {
			e := &sec.Entries[j]
			out = append(out, docItem{sec.Arch.String() + " " + e.Name, sec.Arch.String(), e.Line, &e.LineComment})
		}
	}
	for i := range d.Programs {
		e := &d.Programs[i]
		out = append(out, docItem{"program " + e.written(), "", e.Line, &e.LineComment})
	}
	for i := range d.Files {
		e := &d.Files[i]
		out = append(out, docItem{e.Op.String() + " " + e.Pattern, "", e.Line, &e.LineComment})
	}
	for i := range d.Network {
		e := &d.Network[i]
		out = append(out, docItem{e.Op.String() + " " + e.String(), "", e.Line, &e.LineComment})
	}
	return out
}

// noteRare finds the entries of doc (about to be written, valid) that
// only some of o's runs used, lists them in res, and notes the ones old
// did not have with RareNote. read reads doc's bases.
func noteRare(doc, old *Document, o *Observation, read func(string) ([]byte, error), sel Selector, res *RecordResult) error {
	res.Runs = o.Runs
	if o.Runs < 2 || len(o.SeenIn) == 0 {
		return nil
	}
	data := doc.Format()
	written, err := ParseDocument(doc.Path, data)
	if err != nil {
		return err
	}
	self := filepath.Clean(doc.Path)
	p, err := LoadStackFrom(func(name string) ([]byte, error) {
		if filepath.Clean(name) == self {
			return data, nil
		}
		return read(name)
	}, sel, doc.Path)
	if err != nil {
		return fmt.Errorf("record baseline %s: load the written file: %w", doc.Path, err)
	}
	// missed counts, per line of the written file, the runs whose
	// observation left that entry unused.
	missed := map[int]int{}
	for r := 1; r <= o.Runs; r++ {
		d := Diff(p, o.Run(r))
		lines := map[int]bool{}
		for _, f := range d.Unused {
			lines[f.Line] = true
		}
		for _, f := range d.UnusedPrograms {
			lines[f.Line] = true
		}
		for _, f := range d.UnusedFiles {
			lines[f.Line] = true
		}
		for _, f := range d.UnusedNetwork {
			lines[f.Line] = true
		}
		for l := range lines {
			missed[l]++
		}
	}
	// A syscall entry is judged among the runs on its arch: shards of
	// several arches merge into one observation.
	archRuns := map[string]int{}
	for r := 1; r <= o.Runs; r++ {
		for _, arch := range o.Run(r).Arches() {
			archRuns[arch.String()]++
		}
	}
	had := map[string]bool{}
	for _, it := range old.items() {
		had[it.label] = true
	}
	rare := map[string]RareEntry{}
	for _, it := range written.items() {
		runs := o.Runs
		if it.arch != "" {
			runs = archRuns[it.arch]
		}
		// Seen in no run: an entry kept from the file, not this recording's.
		if seen := o.Runs - missed[it.line]; seen > 0 && seen < runs {
			e := RareEntry{Entry: it.label, Seen: seen, Runs: runs, Added: !had[it.label], File: doc.Path, Line: it.line}
			rare[it.label] = e
			res.Rare = append(res.Rare, e)
		}
	}
	for _, it := range doc.items() {
		if e, ok := rare[it.label]; ok && e.Added && *it.lineComment == "" {
			*it.lineComment = RareNote(e.Seen, e.Runs)
		}
	}
	return nil
}
