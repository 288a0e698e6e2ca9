package baseline

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Entry is one allowed syscall of a Profile and where it comes from.
type Entry struct {
	Name   string
	Reason string
	Group  string // "" for the syscalls list, else the group's name
	File   string
	Line   int
	// Builtin: the entry is the built-in scheduling group's (package
	// baseline/scheduling), allowed by no file; Group is "scheduling".
	Builtin bool
}

// Profile is a validated stack of baseline files: the files named by the
// caller plus everything they extend, as one allow-list per arch.
type Profile struct {
	// Docs are the loaded files, each after the files it extends.
	Docs    []*Document
	entries map[scmp.Arch]map[string]Entry
	// unmonitored: the channels opted in to (first file wins, as for entries)
	unmonitored map[scmp.Arch]map[string]Unmonitored
	direct      map[string]bool // paths named by the caller (not only reached through extends)
	warnings    ErrorList
	unrecorded  []UnrecordedLayer
	layers      []LayerChoice
	// runtimes: what the programs' placeholders stand for in a run
	// (BindRuntimes); nil until bound.
	runtimes RuntimePrograms
	// scheduling: Exact when a file says so or WithScheduling asked for
	// it; otherwise the built-in scheduling group is allowed.
	scheduling scheduling.Mode
	// exactAt: the file and line of the first "scheduling: exact".
	exactAt string
}

// Load reads one baseline file and the files it extends.
func Load(path string) (*Profile, error) { return LoadStack(path) }

// LoadStack reads several baseline files (e.g. a runtime base and an
// agent's file, or every -b flag) with the files they extend, into one
// Profile. A syscall listed twice within one extends chain is an error; two
// unrelated files given here may overlap (the first one wins for Lookup).
// The error is an ErrorList matching ErrInvalid for problems in the files,
// or a wrapped I/O error for a file named here that cannot be read.
func LoadStack(paths ...string) (*Profile, error) { return loadStack(ReadInput, nil, paths) }

// LoadStackFor is LoadStack in an environment: extends entries with
// placeholders pick their layer by sel (layers.go). A layer that does not
// exist is left out and listed by Unrecorded; without a Selector such an
// entry is an error.
func LoadStackFor(sel Selector, paths ...string) (*Profile, error) {
	return loadStack(ReadInput, sel, paths)
}

// LoadStackFrom is LoadStackFor reading every file through read: the
// files as a commit has them (git show REF:path), where read's error for
// a file the commit lacks matches fs.ErrNotExist.
func LoadStackFrom(read func(string) ([]byte, error), sel Selector, paths ...string) (*Profile, error) {
	return loadStack(read, sel, paths)
}

// LoadStackPartial is LoadStackFrom (read nil: the files on disk) for
// commands that judge baselines without running an agent (validate, diff
// --base): a layered extends entry with a placeholder sel has no value
// for (a {go} layer where no Go runtime was asked) picks nothing instead
// of failing. Layers lists it with the layers it could pick, so the
// caller can judge those one by one or say why it cannot.
func LoadStackPartial(read func(string) ([]byte, error), sel Selector, paths ...string) (*Profile, error) {
	if read == nil {
		read = ReadInput
	}
	return loadStackWith(&loader{docs: map[string]*Document{}, read: read, sel: sel, partial: true}, paths)
}

// loadStack is LoadStack reading every file through read.
func loadStack(read func(string) ([]byte, error), sel Selector, paths []string) (*Profile, error) {
	return loadStackWith(&loader{docs: map[string]*Document{}, read: read, sel: sel}, paths)
}

func loadStackWith(l *loader, paths []string) (*Profile, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("load baseline: no files given")
	}
	p := &Profile{entries: map[scmp.Arch]map[string]Entry{}, unmonitored: map[scmp.Arch]map[string]Unmonitored{}, direct: map[string]bool{}}
	for _, path := range paths {
		doc, err := l.readTop(path)
		if err != nil {
			return nil, err
		}
		if doc == nil {
			continue
		}
		p.direct[doc.Path] = true
		stack := l.stack(doc, nil)
		l.checkDuplicates(stack)
		l.checkFileDuplicates(stack)
		l.checkNetworkDuplicates(stack)
		for _, d := range stack {
			if !p.hasDoc(d) {
				p.Docs = append(p.Docs, d)
			}
		}
	}
	if hasErrors(l.errs) {
		return nil, l.errs.sorted()
	}
	for _, d := range p.Docs {
		p.add(d)
		if d.Scheduling == scheduling.Exact && p.scheduling != scheduling.Exact {
			p.scheduling, p.exactAt = scheduling.Exact, fmt.Sprintf("%s:%d", d.Path, d.schedulingLine)
		}
	}
	p.warnings = l.errs.sorted()
	p.unrecorded = l.unrecorded
	p.layers = l.layers
	return p, nil
}

// Layers lists the layered extends entries the stack reached, each with
// the layer it picked or the placeholders it had no value for.
func (p *Profile) Layers() []LayerChoice {
	if p == nil {
		return nil
	}
	return p.layers
}

// Unrecorded lists the layered extends entries whose layer for the
// Selector's environment does not exist: the stack was loaded without
// them.
func (p *Profile) Unrecorded() []UnrecordedLayer {
	if p == nil {
		return nil
	}
	return p.unrecorded
}

func (p *Profile) hasDoc(d *Document) bool {
	for _, have := range p.Docs {
		if have == d {
			return true
		}
	}
	return false
}

func (p *Profile) add(d *Document) {
	put := func(sections []Section, group string) {
		for _, sec := range sections {
			m := p.entries[sec.Arch]
			if m == nil {
				m = map[string]Entry{}
				p.entries[sec.Arch] = m
			}
			for _, e := range sec.Entries {
				if _, have := m[e.Name]; !have {
					m[e.Name] = Entry{Name: e.Name, Reason: e.Reason, Group: group, File: d.Path, Line: e.Line}
				}
			}
		}
	}
	put(d.Syscalls, "")
	for _, sec := range d.Unmonitored {
		m := p.unmonitored[sec.Arch]
		if m == nil {
			m = map[string]Unmonitored{}
			p.unmonitored[sec.Arch] = m
		}
		for _, e := range sec.Entries {
			if _, have := m[e.Name]; !have {
				c, _ := ChannelOf(e.Name)
				m[e.Name] = Unmonitored{Arch: sec.Arch, Syscall: e.Name, Reason: e.Reason, Unseen: c.Unseen, File: d.Path, Line: e.Line}
			}
		}
	}
	for _, g := range d.Groups {
		put(g.Syscalls, g.Name)
	}
}

// Environment is the fingerprint the stack's files were recorded in for
// arch, all files' values together; false when no file has one.
func (p *Profile) Environment(arch scmp.Arch) (Environment, bool) {
	var env Environment
	found := false
	if p == nil {
		return env, false
	}
	for _, d := range p.Docs {
		if e, ok := d.EnvironmentFor(arch); ok {
			env.Merge(e)
			found = true
		}
	}
	return env, found
}

// Warnings returns findings that do not make the files invalid: risky
// syscalls with the record-mode placeholder reason, comments fmt drops.
func (p *Profile) Warnings() []*Error { return p.warnings }

// Arches returns the architectures with a section in any file, sorted by name.
func (p *Profile) Arches() []scmp.Arch {
	if p == nil {
		return nil
	}
	arches := make([]scmp.Arch, 0, len(p.entries))
	for a := range p.entries {
		arches = append(arches, a)
	}
	sort.Slice(arches, func(i, j int) bool { return arches[i].String() < arches[j].String() })
	return arches
}

// Allows reports whether the profile allows syscall name on arch.
func (p *Profile) Allows(arch scmp.Arch, name string) bool {
	_, ok := p.Lookup(arch, name)
	return ok
}

// Lookup returns the entry allowing key on arch: the key itself
// ("socket(AF_UNIX)", "read"), or for a class, its syscall's
// argument-blind entry ("socket" allows every class of socket).
func (p *Profile) Lookup(arch scmp.Arch, key string) (Entry, bool) {
	if p == nil {
		return Entry{}, false
	}
	if e, ok := p.entries[arch][key]; ok {
		return e, true
	}
	if name, class := argclass.SplitKey(key); class != "" {
		if e, ok := p.entries[arch][name]; ok {
			return e, true
		}
	}
	return p.builtin(arch, key)
}

// Classes returns the keys of name's classes the profile allows on arch,
// sorted ("socket(AF_INET)", "socket(AF_UNIX)"), or just name when an
// argument-blind entry allows it.
func (p *Profile) Classes(arch scmp.Arch, name string) []string {
	if p == nil {
		return nil
	}
	if _, ok := p.entries[arch][name]; ok {
		return []string{name}
	}
	var out []string
	for key := range p.entries[arch] {
		if n, class := argclass.SplitKey(key); class != "" && n == name {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}

// Entries returns the allowed entries of arch, sorted by name.
func (p *Profile) Entries(arch scmp.Arch) []Entry {
	if p == nil {
		return nil
	}
	out := make([]Entry, 0, len(p.entries[arch]))
	for _, e := range p.entries[arch] {
		out = append(out, e)
	}
	for _, name := range scheduling.Names() {
		if _, listed := p.entries[arch][name]; !listed {
			if e, ok := p.builtin(arch, name); ok {
				out = append(out, e)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Agent returns the agent named by the first file given to LoadStack that
// names one, or "".
func (p *Profile) Agent() string {
	if d := p.agentDoc(); d != nil {
		return d.Agent
	}
	return ""
}

// agentDoc is the file new syscalls belong in: the first named file with
// an agent key, else the last named file.
func (p *Profile) agentDoc() *Document {
	if p == nil {
		return nil
	}
	var last *Document
	for _, d := range p.Docs {
		if !p.direct[d.Path] {
			continue
		}
		if d.Agent != "" {
			return d
		}
		last = d
	}
	return last
}

// Files returns the paths of every loaded file, bases first.
func (p *Profile) Files() []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(p.Docs))
	for i, d := range p.Docs {
		out[i] = d.Path
	}
	return out
}

// String names the files and counts the allowed syscalls per arch, and
// the programs when the stack gates them:
// "baseline agents/a.yaml (+1 extended): aarch64 1, x86_64 31; programs 2".
func (p *Profile) String() string {
	if p == nil {
		return "<no baseline>"
	}
	var named []string
	for _, d := range p.Docs {
		if p.direct[d.Path] {
			named = append(named, d.Path)
		}
	}
	s := "baseline " + strings.Join(named, ", ")
	if extended := len(p.Docs) - len(named); extended > 0 {
		s += fmt.Sprintf(" (+%d extended)", extended)
	}
	var counts []string
	for _, arch := range p.Arches() {
		counts = append(counts, fmt.Sprintf("%s %d", arch, len(p.entries[arch])))
	}
	parts := []string{strings.Join(counts, ", ")}
	if p.GatesPrograms() {
		parts = append(parts, fmt.Sprintf("programs %d", len(p.Programs())))
		if len(counts) == 0 {
			parts = parts[1:]
		}
	}
	return s + ": " + strings.Join(parts, "; ")
}

// GomegaString keeps Gomega from dumping every parsed document.
func (p *Profile) GomegaString() string { return p.String() }

// Unmonitored returns the channels the profile opts in to, by arch then
// name.
func (p *Profile) Unmonitored() []Unmonitored {
	if p == nil {
		return nil
	}
	var out []Unmonitored
	for _, m := range p.unmonitored {
		for _, u := range m {
			out = append(out, u)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Arch != out[j].Arch {
			return out[i].Arch.String() < out[j].Arch.String()
		}
		return out[i].Syscall < out[j].Syscall
	})
	return out
}

// IsUnmonitored reports whether the profile opts in to channel name on arch.
func (p *Profile) IsUnmonitored(arch scmp.Arch, name string) bool {
	if p == nil {
		return false
	}
	_, ok := p.unmonitored[arch][name]
	return ok
}

// builtin is the built-in scheduling group's entry for name on arch: on
// every arch the stack lists, unless it asks for the group exactly, for
// each member the arch has.
func (p *Profile) builtin(arch scmp.Arch, name string) (Entry, bool) {
	if p.SchedulingExact() || p.entries[arch] == nil || !scheduling.Is(name) {
		return Entry{}, false
	}
	call, class := argclass.SplitKey(name)
	if _, ok := scmp.Number(arch, call); !ok {
		return Entry{}, false
	}
	if class != "" && !argclass.HasClasses(arch, call) {
		return Entry{}, false
	}
	return Entry{Name: name, Reason: scheduling.Reason(name), Group: scheduling.GroupName, Builtin: true}, true
}

// SchedulingExact reports whether the stack treats the scheduling group's
// syscalls as syscalls like any other: a file says "scheduling: exact",
// or WithScheduling(scheduling.Exact) asked for it.
func (p *Profile) SchedulingExact() bool { return p != nil && p.scheduling == scheduling.Exact }

// SchedulingMode is how the stack treats the scheduling group, and where
// that was said: the file and line of its "scheduling: exact", "" for
// the default or a WithScheduling override.
func (p *Profile) SchedulingMode() (scheduling.Mode, string) {
	if p.SchedulingExact() {
		return scheduling.Exact, p.exactAt
	}
	return scheduling.Grouped, ""
}

// WithScheduling returns the profile with the scheduling group treated as
// m, whatever the files say (the CLI's --scheduling); zero returns p. The
// copy shares p's read-only state.
func (p *Profile) WithScheduling(m scheduling.Mode) *Profile {
	if p == nil || m == 0 || m == p.scheduling {
		return p
	}
	c := *p
	c.scheduling, c.exactAt = m, ""
	return &c
}
