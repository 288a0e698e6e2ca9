package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// errNothingRecorded: the runs did nothing the bases do not allow, and
// the file would have nothing of its own.
var errNothingRecorded = fmt.Errorf("%w: nothing observed beyond the bases and no extends to write", ErrInvalid)

// RecordOptions say how record mode writes an agent's baseline.
type RecordOptions struct {
	Agent string
	// Extends name the base files as a user does on a command line:
	// relative to the working directory, or absolute. The file records
	// them relative to its own directory. Syscalls the stack allows are
	// left out. Empty: keep an existing file's extends.
	Extends []string
	// Merge keeps entries of an existing file that this observation did
	// not see (shards, several runs). Without it the syscalls and programs
	// lists become exactly what was observed beyond the bases. Either way
	// the reasons, comments and groups of an existing file are kept.
	Merge bool
	// Before holds the file at path and its bases as they were before the
	// run (SnapshotStack): the new file is built from them alone, so what
	// an agent wrote to them during the run never reaches it. nil reads
	// the disk now.
	Before *Snapshot
	// Select picks the layers of extends entries with placeholders
	// (LoadStackFor).
	Select Selector
	// Provided are more files (with their stacks) whose syscalls and
	// programs are left out, without the written file extending them:
	// a new layer leaves out what the agent's own file holds (RecordLayer).
	Provided []string
	// Scheduling, when set, is written as the file's "scheduling:" key
	// (Exact; Grouped removes the key) and decides whether the built-in
	// scheduling group's syscalls are written; zero keeps the file's key.
	// While the group is allowed (the default) they are not written: every
	// check allows them, and whether a run made them is scheduling.
	Scheduling scheduling.Mode
	// Header is a new file's head comment (an existing file keeps its
	// own); empty: DefaultHeader.
	Header string
}

// RecordResult says what WriteRecorded changed.
type RecordResult struct {
	Added   []Finding // new entries, at their line in the written file
	Removed []Finding // entries of the old file no longer in it
	// Skipped are syscalls libseccomp cannot name (kept as numbers in the
	// observation): a baseline holds names only, so they stay violations.
	Skipped []Finding
	// AddedPrograms, RemovedPrograms: the same for the programs section.
	// SkippedPrograms are programs a line cannot name (one run from
	// memory, "memfd:NAME"): they stay violations.
	AddedPrograms   []ProgramFinding
	RemovedPrograms []ProgramFinding
	SkippedPrograms []ProgramFinding
	// PinChanges are kept program entries whose content pins changed,
	// in the file's order: a pin is part of what the file allows, so
	// record reports it as it reports an added or removed line.
	PinChanges []PinChange
	// AddedFiles, RemovedFiles: the same for the files section (Path is
	// the entry's glob).
	AddedFiles   []FileFinding
	RemovedFiles []FileFinding
	// AddedNetwork, RemovedNetwork: the same for the network section
	// (Dest is the entry's pattern, Program its by).
	AddedNetwork   []NetworkFinding
	RemovedNetwork []NetworkFinding
	// Runs is how many runs the observation holds; Rare the entries of
	// the written file only some of them used (seen in 1..Runs-1), in the
	// file's order.
	Runs int
	Rare []RareEntry
}

// WriteRecorded writes the baseline of a record run to path: the
// observation's syscalls and programs beyond the extends stack, formatted
// and sorted, risky ones with the placeholder reason UnreviewedReason so
// that check accepts the file as is and validate warns until someone
// reviews it. A program inside the git work tree that holds path is
// written relative to path's directory, any other absolute. The file is
// replaced atomically.
func WriteRecorded(path string, o *Observation, opts RecordOptions) (*RecordResult, error) {
	doc, res, err := FromObservation(path, o, opts)
	if err != nil {
		return nil, err
	}
	if err := Save(path, doc); err != nil {
		return nil, err
	}
	// Report Added lines from the file as written.
	if written, err := ParseDocument(path, doc.Format()); err == nil {
		for i := range res.Added {
			if sec := sectionFor(&written.Syscalls, res.Added[i].Arch, false); sec != nil {
				for _, e := range sec.Entries {
					if e.Name == res.Added[i].Syscall {
						res.Added[i].Line = e.Line
					}
				}
			}
		}
		res.lineFiles(written)
		res.lineNetwork(written)
		for i := range res.AddedPrograms {
			for _, e := range written.Programs {
				if e.Path == res.AddedPrograms[i].Program {
					res.AddedPrograms[i].Line = e.Line
				}
			}
		}
	}
	return res, nil
}

// FromObservation builds the document WriteRecorded would write to path,
// reading an existing file at path (if any) for its reasons and groups.
func FromObservation(path string, o *Observation, opts RecordOptions) (*Document, *RecordResult, error) {
	if o == nil {
		return nil, nil, fmt.Errorf("record baseline %s: no observation", path)
	}
	agent := opts.Agent
	if agent == "" {
		agent = o.Agent
	}
	if _, err := mergeAgents(agent, o.Agent, false); err != nil {
		return nil, nil, fmt.Errorf("record baseline %s: %w", path, err)
	}
	read := ReadInput
	if opts.Before != nil {
		read = opts.Before.Read
	}
	old, err := readExisting(read, path)
	if err != nil {
		return nil, nil, err
	}
	doc, err := startDocument(path, agent, old, opts.Extends)
	if err != nil {
		return nil, nil, err
	}
	if doc.Header == "" {
		doc.Header = opts.Header
	}
	base, err := loadBases(read, opts.Select, path, doc.Extends, opts.Provided...)
	if err != nil {
		return nil, nil, err
	}
	res := &RecordResult{}
	switch opts.Scheduling {
	case scheduling.Exact:
		doc.Scheduling = scheduling.Exact
	case scheduling.Grouped:
		doc.Scheduling = 0
	}
	exact := doc.Scheduling == scheduling.Exact || base.SchedulingExact()
	grouped := func(name string) bool { return !exact && scheduling.Is(name) }
	doc.Groups = dropProvided(doc.Groups, func(arch scmp.Arch, name string) bool { return base.Allows(arch, name) || grouped(name) }, path, res)
	inGroup := func(arch scmp.Arch, name string) bool {
		for _, g := range doc.Groups {
			if sec := sectionFor(&g.Syscalls, arch, false); sec != nil && sec.has(name) {
				return true
			}
		}
		return false
	}
	provided := func(arch scmp.Arch, name string) bool {
		return base.Allows(arch, name) || inGroup(arch, name) || grouped(name)
	}

	recordSyscalls(doc, old, o, provided, res)
	carryOverEntries(doc, old, o, provided, opts.Merge, res)
	recordPrograms(doc, old, base, o, opts.Merge, res)
	recordFiles(doc, old, base, o, opts.Merge, res)
	recordNetwork(doc, old, base, o, opts.Merge, res)
	recordEnvironment(doc, old, o, opts.Merge)
	doc.normalize()
	if len(doc.Syscalls) == 0 && len(doc.Extends) == 0 && len(doc.Groups) == 0 && len(doc.Unmonitored) == 0 && !doc.HasPrograms && !doc.HasFiles && !doc.HasNetwork {
		return nil, nil, fmt.Errorf("record baseline %s: %w", path, errNothingRecorded)
	}
	sortFindings(res.Added)
	sortFindings(res.Removed)
	sortFindings(res.Skipped)
	// What record writes, check must accept as is.
	if _, err := ParseDocument(path, doc.Format()); err != nil {
		return nil, nil, fmt.Errorf("record baseline %s: generated file does not validate: %w", path, err)
	}
	if err := noteRare(doc, old, o, read, opts.Select, res); err != nil {
		return nil, nil, err
	}
	return doc, res, nil
}

// startDocument is the file record writes for path: the existing file's
// header, groups, unmonitored channels and extends carried over, agent
// checked against it, and extends (when given) in place of the file's.
func startDocument(path, agent string, old *Document, extends []string) (*Document, error) {
	doc := &Document{Path: path, Version: FormatVersion, Agent: agent}
	if old != nil {
		doc.Header, doc.Groups, doc.Unmonitored, doc.Scheduling = old.Header, old.Groups, old.Unmonitored, old.Scheduling
		if doc.Agent == "" {
			doc.Agent = old.Agent
		} else if old.Agent != "" && old.Agent != doc.Agent {
			return nil, fmt.Errorf("record baseline %s: %w: file is for %q, observation for %q", path, ErrAgentMismatch, old.Agent, doc.Agent)
		}
		doc.Extends = old.Extends
	}
	if len(extends) > 0 {
		doc.Extends = nil
		for _, e := range extends {
			rel, err := relativeTo(path, e)
			if err != nil {
				return nil, fmt.Errorf("record baseline %s: extends %s: %w", path, e, err)
			}
			doc.Extends = append(doc.Extends, Ref{Path: rel})
		}
	}
	return doc, nil
}

// recordSyscalls writes each observed syscall that neither a base nor a
// group provides: the file's own entry (with its reason) when it has one,
// else a new entry, counted as added. Names of no known syscall are
// skipped.
func recordSyscalls(doc, old *Document, o *Observation, provided func(scmp.Arch, string) bool, res *RecordResult) {
	path := doc.Path
	for _, arch := range o.Arches() {
		for _, name := range o.Names(arch) {
			if provided(arch, name) {
				continue
			}
			if n, class := argclass.SplitKey(name); class != "" && o.Count(arch, n) > 0 {
				continue // the argument-blind entry written for n covers it
			}
			if _, named := scmp.Number(arch, argclass.SyscallOf(name)); !named {
				res.Skipped = append(res.Skipped, Finding{Arch: arch, Syscall: name, Count: o.Count(arch, name), Risk: risk.Of(name), Level: risk.LevelOf(name)})
				continue
			}
			e := DocEntry{Name: name}
			if prev, ok := old.entry(arch, name); ok {
				e = prev
			} else {
				if risk.Of(name).Risky() {
					e.Reason = UnreviewedReason
				} else if blind, ok := old.entry(arch, argclass.SyscallOf(name)); ok && blind.Reason != "" {
					// A blind entry's reason carries over to the classes
					// that replace it.
					e.Reason = blind.Reason
				}
				res.Added = append(res.Added, Finding{Arch: arch, Syscall: name, Count: o.Count(arch, name), Risk: risk.Of(name), Level: risk.LevelOf(name), File: path})
			}
			sec := sectionFor(&doc.Syscalls, arch, true)
			sec.Entries = append(sec.Entries, e)
		}
	}
}

// carryOverEntries settles the file's existing entries that
// recordSyscalls did not write: replaced by class entries or no longer
// seen, they are removed, unless merge keeps an unseen one that no base
// or group provides.
func carryOverEntries(doc, old *Document, o *Observation, provided func(scmp.Arch, string) bool, merge bool, res *RecordResult) {
	path := doc.Path
	if old != nil {
		for _, sec := range old.Syscalls {
			for _, e := range sec.Entries {
				switch {
				case o.replacesEntry(sec.Arch, e.Name):
					res.Removed = append(res.Removed, Finding{Arch: sec.Arch, Syscall: e.Name, Risk: risk.Of(e.Name), Level: risk.LevelOf(e.Name), File: path, Line: e.Line})
				case !provided(sec.Arch, e.Name) && o.Count(sec.Arch, e.Name) > 0:
					// carried over above, with its reason
				case !provided(sec.Arch, e.Name) && merge:
					s := sectionFor(&doc.Syscalls, sec.Arch, true)
					s.Entries = append(s.Entries, e)
				default: // now in a base or a group, or stale
					res.Removed = append(res.Removed, Finding{Arch: sec.Arch, Syscall: e.Name, Risk: risk.Of(e.Name), Level: risk.LevelOf(e.Name), File: path, Line: e.Line})
				}
			}
		}
	}
}

// recordEnvironment writes the observation's fingerprint of each arch it
// ran on: with merge added to the file's (the entries kept cover both
// machines), else in its place. An arch not observed keeps the file's.
func recordEnvironment(doc, old *Document, o *Observation, merge bool) {
	if old != nil {
		doc.Environment = append([]EnvSection(nil), old.Environment...)
	}
	for _, arch := range o.Arches() {
		env := o.Environment[arch].Clone()
		if merge && old != nil {
			if have, ok := old.EnvironmentFor(arch); ok {
				env.Merge(have)
			}
		}
		doc.SetEnvironment(arch, env)
	}
}

// dropProvided removes group entries a base (or the built-in scheduling
// group) now allows (a stack may list a syscall once), and groups left
// empty, reporting them as removed.
func dropProvided(groups []Group, allowed func(scmp.Arch, string) bool, path string, res *RecordResult) []Group {
	var kept []Group
	for _, g := range groups {
		var sections []Section
		for _, sec := range g.Syscalls {
			var entries []DocEntry
			for _, e := range sec.Entries {
				if allowed(sec.Arch, e.Name) {
					res.Removed = append(res.Removed, Finding{Arch: sec.Arch, Syscall: e.Name, Risk: risk.Of(e.Name), Level: risk.LevelOf(e.Name), File: path, Line: e.Line})
					continue
				}
				entries = append(entries, e)
			}
			if len(entries) > 0 {
				sec.Entries = entries
				sections = append(sections, sec)
			}
		}
		if len(sections) > 0 {
			g.Syscalls = sections
			kept = append(kept, g)
		}
	}
	return kept
}

// relativeTo rewrites base (relative to the working directory) as the
// extends entry of the file at path: relative to that file's directory,
// with forward slashes so the file reads the same on every machine.
func relativeTo(path, base string) (string, error) {
	absBase, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	absDir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absBase)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

func readExisting(read func(string) ([]byte, error), path string) (*Document, error) {
	data, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record baseline: %w", err)
	}
	doc, err := ParseDocument(path, data)
	if err != nil {
		return nil, fmt.Errorf("record baseline: existing file must be valid to be updated: %w", err)
	}
	return doc, nil
}

// loadBases loads the extends stack of a file about to be written at path.
func loadBases(read func(string) ([]byte, error), sel Selector, path string, refs []Ref, provided ...string) (*Profile, error) {
	paths := append([]string(nil), provided...)
	for _, ref := range refs {
		target, err := resolveRef(path, ref, sel)
		if err != nil {
			return nil, fmt.Errorf("record baseline %s: %w", path, err)
		}
		if IsLayered(ref.Path) {
			if _, err := read(target); layerMissing(err) {
				continue // not recorded yet: nothing of it to leave out
			}
		}
		paths = append(paths, target)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	p, err := loadStack(read, sel, paths)
	if err != nil {
		return nil, fmt.Errorf("record baseline %s: extends: %w", path, err)
	}
	return p, nil
}

// has reports whether the section allows key: the key itself, or its
// syscall's argument-blind entry.
func (s *Section) has(key string) bool {
	name := argclass.SyscallOf(key)
	for _, e := range s.Entries {
		if e.Name == key || e.Name == name {
			return true
		}
	}
	return false
}

// entry returns the document's syscalls-list entry for name on arch.
func (d *Document) entry(arch scmp.Arch, name string) (DocEntry, bool) {
	if d == nil {
		return DocEntry{}, false
	}
	if sec := sectionFor(&d.Syscalls, arch, false); sec != nil {
		for _, e := range sec.Entries {
			if e.Name == name {
				return e, true
			}
		}
	}
	return DocEntry{}, false
}

// Save writes d, formatted, to path through a temporary file and a rename.
func Save(path string, d *Document) error {
	if err := WriteFileAtomic(path, d.Format()); err != nil {
		return fmt.Errorf("save baseline: %w", err)
	}
	return nil
}

// replacesEntry reports whether what o saw of key's syscall supersedes an
// old entry for key even when merging: classes observed replace an
// argument-blind entry (the file moves to classes), and an
// argument-blind observation (classes off) replaces class entries, which
// it covers.
func (o *Observation) replacesEntry(arch scmp.Arch, key string) bool {
	name, class := argclass.SplitKey(key)
	if class != "" {
		return o.Count(arch, name) > 0
	}
	if !argclass.HasClasses(arch, name) || o.Count(arch, name) > 0 {
		return false
	}
	return o.Uses(arch, name)
}
