package update

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/scmp"
)

// ErrUnexpected is matched by an update refused because an observation
// does not fit the baselines: an agent without a baseline file, an arch
// the baselines do not expect, or an expected arch no shard observed.
var ErrUnexpected = errors.New("observations do not match the baselines")

// Options say how observations become baseline changes.
type Options struct {
	// Dir is searched (recursively, *.yaml) for baseline files. An
	// observation of agent A updates the file whose agent key is A, or a
	// file without an agent key named A.yaml (a runtime base).
	Dir string
	// Arches are the arches the observations must cover, exactly (CI,
	// where every arch's shard ran). Empty: each observed arch must have a
	// section in the file already (any, for a file with none), and the
	// sections of arches not observed stay as they are (a workstation
	// records its own arch only).
	Arches []scmp.Arch
	// KeepUnseen keeps entries of an observed arch that no run made,
	// instead of removing them as stale.
	KeepUnseen bool
	// Root makes paths in the result relative to the repository.
	Root string
	// Write rewrites the files; otherwise only the change is computed.
	Write bool
}

// FileChange is the change to one baseline file.
type FileChange struct {
	Agent       string
	File        string // relative to Options.Root
	RuntimeBase bool   // other baselines extend it
	Runs        int
	Added       []baseline.Finding
	Removed     []baseline.Finding
	Skipped     []baseline.Finding // numbers libseccomp cannot name: not written
	// HadClasses: for an added argument class, by arch and key, the other
	// classes of its syscall that the file's stack allowed before the
	// update ("socket(AF_INET)": "socket(AF_UNIX)"), so the review reads
	// it as a new class of a syscall already allowed.
	HadClasses map[scmp.Arch]map[string][]string
	// AddedPrograms are the programs the runs ran that the file's stack
	// did not allow; RemovedPrograms the file's program entries no run
	// ran (none with Options.KeepUnseen, or when an arch of the
	// stack was not observed). Both come from baseline.Diff against the
	// stack as the update found it, its bases already updated when Write
	// rewrote them.
	AddedPrograms, RemovedPrograms []baseline.ProgramFinding
	// PinChanges are the program entries whose content pins the update
	// changes (baseline.RecordResult.PinChanges).
	PinChanges []baseline.PinChange
	// AddedFiles are the files entries the update writes (generalised
	// globs, sensitive paths literally); RemovedFiles the entries it drops.
	AddedFiles, RemovedFiles []baseline.FileFinding
	// AddedNetwork are the network entries the update writes (Dest the
	// pattern, Program its by:; risky ones with the placeholder reason);
	// RemovedNetwork the entries it drops.
	AddedNetwork, RemovedNetwork []baseline.NetworkFinding
	// Rare are the file's entries only some of the runs needed
	// (baseline.RecordResult.Rare).
	Rare []baseline.RareEntry
}

// Changed reports whether the file changes.
func (u *FileChange) Changed() bool {
	return len(u.Added)+len(u.Removed)+len(u.AddedPrograms)+len(u.RemovedPrograms)+len(u.PinChanges)+len(u.AddedFiles)+len(u.RemovedFiles)+
		len(u.AddedNetwork)+len(u.RemovedNetwork) > 0
}

// Update is a baseline update: every file's change, runtime bases first.
type Update struct {
	Arches []scmp.Arch // arches observed, sorted by name
	Files  []FileChange
	// Incremental: an observation came from an incremental record (or a
	// check run), which sees only what the baselines lack: entries no run
	// made were kept, not checked.
	Incremental bool
}

// baselineFile is a parsed file of Options.Dir.
type baselineFile struct {
	path string
	doc  *baseline.Document
	base bool
	// pattern: the layered extends entry (as a path from the working
	// directory) that picks this file; created: a layer this update
	// writes for the first time.
	pattern string
	created bool
}

// Plan turns merged observations (MergeObservations) into baseline
// changes, and writes them with opts.Write. Observations that do not fit
// (ErrUnexpected) stop it before any file is written: a shard that ran
// the wrong agent or on the wrong arch must be noticed, not folded in.
func Plan(obs map[string]*baseline.Observation, opts Options) (*Update, error) {
	incremental := false
	for _, o := range obs {
		incremental = incremental || o.Incremental
	}
	if incremental {
		// What such a run did not log may still be in use: removing it
		// would break the next check.
		opts.KeepUnseen = true
	}
	files, err := readBaselineDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	targets := map[string]*baselineFile{}
	var problems []string
	arches := map[scmp.Arch]bool{}
	for _, agent := range sortedAgents(obs) {
		o := obs[agent]
		f, err := fileFor(files, agent, o)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if f == nil {
			problems = append(problems, fmt.Sprintf("agent %q: no baseline file in %s has agent: %s (record it once with `sysgate record`)", agent, opts.Dir, agent))
			continue
		}
		targets[agent] = f
		problems = append(problems, archProblems(agent, f, o, opts.Arches)...)
		for _, a := range o.Arches() {
			arches[a] = true
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n  %s", ErrUnexpected, strings.Join(problems, "\n  "))
	}
	// Bases first: an agent's file leaves out what its bases allow, so it
	// must be computed against the updated bases.
	agents := sortedAgents(obs)
	slices.SortStableFunc(agents, func(a, b string) int { return boolRank(targets[b].base) - boolRank(targets[a].base) })
	u := &Update{Incremental: incremental}
	for a := range arches {
		u.Arches = append(u.Arches, a)
	}
	slices.SortFunc(u.Arches, func(a, b scmp.Arch) int { return strings.Compare(a.String(), b.String()) })
	// The stacks as they were, before a base is rewritten under an agent;
	// one that does not load gets no notes (its update says why).
	before := map[string]*baseline.Profile{}
	for _, agent := range agents {
		if p, err := baseline.LoadStackFor(selectorOf(obs[agent]), targets[agent].path); err == nil {
			before[agent] = p
		}
	}
	for _, agent := range agents {
		f, o := targets[agent], obs[agent]
		addedPrograms, removedPrograms := programChanges(f.path, o, opts.KeepUnseen)
		res, err := updateFile(f, o, opts)
		if err != nil {
			return nil, fmt.Errorf("update baseline of %s: %w", agent, err)
		}
		fu := FileChange{Agent: agent, File: ci.RepoPath(opts.Root, "", f.path), RuntimeBase: f.base, Runs: o.Runs,
			Added: res.Added, Removed: res.Removed, Skipped: res.Skipped, HadClasses: hadClasses(before[agent], res.Added),
			AddedPrograms: addedPrograms, RemovedPrograms: removedPrograms, PinChanges: res.PinChanges, AddedFiles: res.AddedFiles, RemovedFiles: res.RemovedFiles,
			AddedNetwork: res.AddedNetwork, RemovedNetwork: res.RemovedNetwork, Rare: res.Rare}
		for _, list := range [][]baseline.Finding{fu.Added, fu.Removed, fu.Skipped} {
			for i := range list {
				list[i].File = fu.File
			}
		}
		for _, list := range [][]baseline.ProgramFinding{fu.AddedPrograms, fu.RemovedPrograms} {
			for i := range list {
				list[i].File = fu.File
			}
		}
		for _, list := range [][]baseline.NetworkFinding{fu.AddedNetwork, fu.RemovedNetwork} {
			for i := range list {
				list[i].File = fu.File
			}
		}
		u.Files = append(u.Files, fu)
	}
	return u, nil
}

// programChanges are the programs an update of the file at path adds and
// removes: what o ran that the file's stack does not allow, and the
// file's entries no run ran. Programs are not per arch, so an entry is
// removed only when o covers every arch of the stack: a program only
// the other arch's runs need is not stale because this arch's runs did
// not run it. A stack that does not load has none (its update says why).
func programChanges(path string, o *baseline.Observation, keepUnseen bool) (added, removed []baseline.ProgramFinding) {
	p, err := baseline.LoadStackFor(selectorOf(o), path)
	if err != nil {
		return nil, nil
	}
	d := baseline.Diff(p, o)
	if keepUnseen {
		return d.NewPrograms, nil
	}
	for _, a := range p.Arches() {
		if len(o.Syscalls[a]) == 0 {
			return d.NewPrograms, nil
		}
	}
	return d.NewPrograms, d.UnusedPrograms
}

// hadClasses lists, for each added argument class, the other classes of
// its syscall that p allowed.
func hadClasses(p *baseline.Profile, added []baseline.Finding) map[scmp.Arch]map[string][]string {
	var out map[scmp.Arch]map[string][]string
	for _, a := range added {
		name, class := argclass.SplitKey(a.Syscall)
		if class == "" {
			continue
		}
		var had []string
		for _, key := range p.Classes(a.Arch, name) {
			if _, c := argclass.SplitKey(key); c != "" && key != a.Syscall {
				had = append(had, key)
			}
		}
		if len(had) == 0 {
			continue
		}
		if out == nil {
			out = map[scmp.Arch]map[string][]string{}
		}
		if out[a.Arch] == nil {
			out[a.Arch] = map[string][]string{}
		}
		out[a.Arch][a.Syscall] = had
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// archProblems checks an agent's observation against the arches expected
// of it.
func archProblems(agent string, f *baselineFile, o *baseline.Observation, want []scmp.Arch) []string {
	expected := map[scmp.Arch]bool{}
	for _, a := range want {
		expected[a] = true
	}
	if len(want) == 0 {
		// The arches of the whole stack: an agent file may leave an
		// arch's list entirely to its runtime base.
		for _, s := range f.doc.Syscalls {
			expected[s.Arch] = true
		}
		if p, err := baseline.LoadStackFor(selectorOf(o), f.path); err == nil {
			for _, a := range p.Arches() {
				expected[a] = true
			}
		}
	}
	if len(expected) == 0 {
		return nil
	}
	var problems []string
	for _, a := range o.Arches() {
		if !expected[a] {
			problems = append(problems, fmt.Sprintf("agent %q: observed on %s, which %s does not expect (pass --arch %s to add it)", agent, a, f.path, a))
		}
	}
	if len(want) == 0 {
		return problems
	}
	for _, a := range sortedArches(expected) {
		if len(o.Syscalls[a]) == 0 {
			problems = append(problems, fmt.Sprintf("agent %q: no shard observed it on %s; updating would empty that section of %s", agent, a, f.path))
		}
	}
	return problems
}

func sortedArches(set map[scmp.Arch]bool) []scmp.Arch {
	out := make([]scmp.Arch, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b scmp.Arch) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// selectorOf picks layers by the environment an observation was made in
// (its first arch's).
func selectorOf(o *baseline.Observation) baseline.Selector {
	arches := o.Arches()
	if len(arches) == 0 {
		return baseline.Selector{}
	}
	return baseline.SelectorFor(arches[0], o.Environment[arches[0]])
}

// fileFor finds the baseline file an agent's observation updates. When
// the agent's files are layers (picked by an extends entry with
// placeholders), it is the layer of the observation's environment: a new
// file when nobody recorded that environment yet.
func fileFor(files []*baselineFile, agent string, o *baseline.Observation) (*baselineFile, error) {
	for _, f := range files {
		if f.doc.Agent != agent || f.pattern == "" {
			continue
		}
		path, err := selectorOf(o).Expand(f.pattern)
		if err != nil {
			return nil, fmt.Errorf("agent %q: its files are layers (%s) and the observation's environment cannot pick one: %v (observations need an environment: record with this sysgate)", agent, f.pattern, err)
		}
		path = filepath.Clean(path)
		for _, g := range files {
			if filepath.Clean(g.path) == path {
				return g, nil
			}
		}
		doc := &baseline.Document{Path: path, Version: baseline.FormatVersion, Agent: agent,
			Header: "# sysgate layer for " + selectorOf(o).String() + ": picked by " + f.pattern + ".\n# Recorded by sysgate in that environment; reviewed in pull requests."}
		return &baselineFile{path: path, doc: doc, base: true, pattern: f.pattern, created: true}, nil
	}
	for _, f := range files {
		if f.doc.Agent == agent {
			return f, nil
		}
	}
	for _, f := range files {
		if f.doc.Agent == "" && strings.TrimSuffix(filepath.Base(f.path), filepath.Ext(f.path)) == agent {
			return f, nil
		}
	}
	return nil, nil
}

// readBaselineDir parses every *.yaml under dir and marks the files other
// files extend as runtime bases.
func readBaselineDir(dir string) ([]*baselineFile, error) {
	var files []*baselineFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := baseline.ReadInput(path)
		if err != nil {
			return err
		}
		doc, err := baseline.ParseDocument(path, data)
		if err != nil {
			return err
		}
		files = append(files, &baselineFile{path: path, doc: doc})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read baselines: %w", err)
	}
	for _, f := range files {
		for _, ref := range f.doc.Extends {
			target := filepath.Clean(filepath.Join(filepath.Dir(f.path), ref.Path))
			pattern := ""
			if baseline.IsLayered(ref.Path) {
				pattern = target
			}
			for _, g := range files {
				if g.path == f.path {
					continue
				}
				if pattern != "" {
					if ok, _ := filepath.Match(baseline.LayerGlob(pattern), filepath.Clean(g.path)); ok {
						g.base, g.pattern = true, pattern
					}
				} else if filepath.Clean(g.path) == target {
					g.base = true
				}
			}
		}
	}
	return files, nil
}

// updateFile computes (and with write, saves) one file's new content. A
// runtime base without an agent key keeps it that way: it belongs to no
// agent, the observation only names which runtime it is.
func updateFile(f *baselineFile, o *baseline.Observation, opts Options) (*baseline.RecordResult, error) {
	doc, res, err := baseline.FromObservation(f.path, o, baseline.RecordOptions{Agent: o.Agent, Merge: opts.KeepUnseen, Select: selectorOf(o)})
	if err != nil {
		return nil, err
	}
	// An arch this update did not observe keeps its section as it is.
	observed := map[scmp.Arch]bool{}
	for _, a := range o.Arches() {
		observed[a] = true
	}
	for _, sec := range f.doc.Syscalls {
		if !observed[sec.Arch] && !opts.KeepUnseen {
			doc.Syscalls = append(doc.Syscalls, sec)
		}
	}
	res.Removed = slices.DeleteFunc(res.Removed, func(r baseline.Finding) bool { return !observed[r.Arch] })
	if !opts.Write {
		return res, nil
	}
	doc.Agent = f.doc.Agent
	if f.created {
		doc.Header = f.doc.Header
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return nil, fmt.Errorf("update baseline: %w", err)
		}
	}
	if err := baseline.Save(f.path, doc); err != nil {
		return nil, err
	}
	// Added findings carry the line they were written at, for the review.
	written, err := baseline.ParseDocument(f.path, doc.Format())
	if err != nil {
		return nil, fmt.Errorf("written baseline does not parse: %w", err)
	}
	for i, a := range res.Added {
		for _, sec := range written.Syscalls {
			for _, e := range sec.Entries {
				if sec.Arch == a.Arch && e.Name == a.Syscall {
					res.Added[i].Line = e.Line
				}
			}
		}
	}
	return res, nil
}
