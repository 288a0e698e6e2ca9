package baseline

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline/scheduling"
)

// FilesGated reports whether some file of the profile has a files
// section: only then is an access outside it a violation. A stack without
// one is file-blind (FileBlindWarning).
func (p *Profile) FilesGated() bool {
	if p == nil {
		return false
	}
	for _, d := range p.Docs {
		if d.HasFiles {
			return true
		}
	}
	return false
}

// FileEntries returns the files entries of every file, bases first, each glob
// and access once (the first file wins): layers union their sections.
func (p *Profile) FileEntries() []FileEntry {
	if p == nil {
		return nil
	}
	var out []FileEntry
	seen := map[string]bool{}
	for _, d := range p.Docs {
		for _, e := range d.Files {
			if !seen[e.key()] {
				seen[e.key()] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// FileBlindWarning is the warning for a stack none of whose files has a
// files section, so that files are not gated: validate prints it (a
// failure with --strict), on the agent's own file. nil when the profile
// gates files.
func (p *Profile) FileBlindWarning() *Error {
	d := p.agentDoc()
	if d == nil || p.FilesGated() {
		return nil
	}
	return &Error{File: d.Path, Kind: KindFileBlind, Warning: true,
		Message: "files are not gated: no file of this stack has a files section; record with --merge to add one"}
}

// FileMatcher answers, for one run's placeholder values, which entry
// allows an access. Build it once per run (Profile.FileMatcher): literal
// entries are a map lookup, globs a walk over the path's elements.
type FileMatcher struct {
	entries []FileEntry
	// builtin: entries from this index on are the scheduling group's,
	// which allow but are never named as the closest entry.
	builtin int
	exact   map[FileOp]map[string]int // expanded literal path -> entry
	globs   map[FileOp][]compiledFile
}

type compiledFile struct {
	g   glob
	idx int
}

// FileMatcher compiles the profile's files entries with ctx's placeholder
// values. With ctx zero except for symbolic values (FileContext.Abstract
// form) it matches paths as observations keep them.
//
// Unless the stack treats the scheduling group exactly, the group's files
// (scheduling.Files) are allowed for reading after every entry of the
// files: whether a run reads them is the scheduler's choice, as for the
// group's syscalls, so record never needs to write them.
func (p *Profile) FileMatcher(ctx FileContext) *FileMatcher {
	entries := p.FileEntries()
	n := len(entries)
	if !p.SchedulingExact() {
		for _, f := range scheduling.Files {
			entries = append(entries, FileEntry{Pattern: f.Path, Op: FileRead, Reason: scheduling.FileReason(f.Path)})
		}
	}
	m := newFileMatcher(entries, ctx)
	m.builtin = n
	return m
}

func newFileMatcher(entries []FileEntry, ctx FileContext) *FileMatcher {
	m := &FileMatcher{entries: entries, builtin: len(entries), exact: map[FileOp]map[string]int{}, globs: map[FileOp][]compiledFile{}}
	for i, e := range entries {
		for _, x := range expand(ctx, e.Pattern, e.repo) {
			g := compileGlob(x)
			if !g.literal() {
				m.globs[e.Op] = append(m.globs[e.Op], compiledFile{g, i})
				continue
			}
			if m.exact[e.Op] == nil {
				m.exact[e.Op] = map[string]int{}
			}
			if _, have := m.exact[e.Op][x]; !have {
				m.exact[e.Op][x] = i
			}
		}
	}
	return m
}

// FileAllows reports whether the profile allows op on path (absolute) in
// a run with ctx's placeholder values. A run making many checks should
// build a FileMatcher once instead.
func (p *Profile) FileAllows(ctx FileContext, path string, op FileOp) bool {
	return p.FileMatcher(ctx).Allows(path, op)
}

// Allows reports whether an entry allows op on path.
func (m *FileMatcher) Allows(path string, op FileOp) bool {
	_, ok := m.Lookup(path, op)
	return ok
}

// Lookup returns the entry allowing op on path: a literal entry before
// any glob, then the globs bases first. A relative path is allowed by
// nothing.
func (m *FileMatcher) Lookup(p string, op FileOp) (FileEntry, bool) {
	if i := m.index(p, op); i >= 0 {
		return m.entries[i], true
	}
	return FileEntry{}, false
}

// index is Lookup's entry index, -1 for none.
func (m *FileMatcher) index(p string, op FileOp) int {
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "{") {
		return -1
	}
	p = path.Clean(p)
	if i, ok := m.exact[op][p]; ok {
		return i
	}
	name := splitPath(p)
	for _, c := range m.globs[op] {
		if c.g.match(name) {
			return c.idx
		}
	}
	return -1
}

// Closest is the entry to name beside a refused access: one that allows
// the path for another access, else among the related entries (related)
// the one sharing the longest leading run of path elements with it;
// false when none is related: a neighbour such as /etc/gitconfig says
// nothing about a read of /etc/passwd.
func (m *FileMatcher) Closest(p string, op FileOp) (FileEntry, bool) {
	for _, other := range fileOps {
		if other == op {
			continue
		}
		if i := m.index(p, other); i >= 0 && i < m.builtin {
			return m.entries[i], true
		}
	}
	name := splitPath(path.Clean(p))
	best, bestLen := -1, -1
	for _, list := range m.globs {
		for _, c := range list {
			if c.idx < m.builtin && related(c.g, name) {
				best, bestLen = closer(best, bestLen, c.idx, commonElems(c.g, name))
			}
		}
	}
	for _, exact := range m.exact {
		for x, i := range exact {
			if g := compileGlob(x); i < m.builtin && related(g, name) {
				best, bestLen = closer(best, bestLen, i, commonElems(g, name))
			}
		}
	}
	if best < 0 {
		return FileEntry{}, false
	}
	return m.entries[best], true
}

// related reports whether an entry's glob g is worth naming beside the
// path name: it lists the same directory (a sibling file, or a pattern
// for its files), or it is a tree ("dir/**/*.py") the path is in, and
// that directory is specific: not "/", not a top-level one such as /etc
// or /tmp, whose files have nothing in common; a placeholder's directory
// ({workspace}, {home}) is specific.
func related(g glob, name []string) bool {
	if len(name) < 2 {
		return false
	}
	dir := len(name) - 1
	k := slices.Index(g, "**")
	switch {
	case k < 0 && len(g) == len(name):
		k = dir
	case k < 0 || k > dir:
		return false
	}
	for i := range k {
		if !matchElem(g[i], name[i]) {
			return false
		}
	}
	// name[:k] is the shared directory: "", "etc" is /etc.
	if strings.HasPrefix(name[0], "{") {
		return k >= 1
	}
	return k >= 3
}

// closer keeps the candidate with the longer common prefix, and between
// equals the earlier entry, so the answer does not depend on map order.
func closer(best, bestLen, idx, n int) (int, int) {
	if n > bestLen || (n == bestLen && idx < best) {
		return idx, n
	}
	return best, bestLen
}

func commonElems(g glob, name []string) int {
	n := 0
	for n < len(g) && n < len(name) && g[n] != "**" && matchElem(g[n], name[n]) {
		n++
	}
	return n
}

// Explain says why op on path is refused, for reports: "not in the
// baseline; it has {workspace}/**: read".
func (m *FileMatcher) Explain(p string, op FileOp) string {
	if e, ok := m.Closest(p, op); ok {
		return "not in the baseline; it has " + e.String()
	}
	if m.builtin > 0 {
		return "not in the baseline" // nothing related to name
	}
	return "not in the baseline; its files section is empty"
}

// SensitiveFileProblems checks the files entries again with a run's
// placeholder values: an entry without a reason whose glob, written with
// a literal path, names or covers a sensitive path there
// ("/home/runner/**: read" when the home is /home/runner). Parsing
// already did this for the placeholders as written; this finds what only
// the values show. Each problem is a KindSensitive Error on the entry.
func (p *Profile) SensitiveFileProblems(ctx FileContext) []*Error {
	var out []*Error
	for _, e := range p.FileEntries() {
		if e.Reason != "" || len(sensitiveOverlap(e)) > 0 {
			continue // parsing has judged it
		}
		if hits := sensitiveOverlapIn(ctx, e); len(hits) > 0 {
			out = append(out, &Error{File: e.File, Line: e.Line, Col: e.Col, Kind: KindSensitive,
				Message: fmt.Sprintf("%s %s in this run (home %s, workspace %s); give a reason", e, describeOverlap(hits), ctx.Home, ctx.Workspace)})
		}
	}
	return out
}

// checkFileDuplicates reports a files entry (glob and access) that two
// files of one extends stack list, as for syscalls: the agent's file
// holds only what the agent adds to its bases.
func (l *loader) checkFileDuplicates(stack []*Document) {
	var entries []stackEntry
	for _, d := range stack {
		for _, e := range d.Files {
			entries = append(entries, stackEntry{key: e.key(), name: e.String(), file: e.File, line: e.Line, col: e.Col})
		}
	}
	l.checkStackDuplicates(entries)
}

// stackEntry is what the duplicate check needs of a section's entry.
type stackEntry struct {
	key, name, file string
	line, col       int
}

// checkStackDuplicates reports an entry whose key an earlier file of the
// stack (entries in stack order) already has.
func (l *loader) checkStackDuplicates(entries []stackEntry) {
	first := map[string]stackEntry{}
	for _, e := range entries {
		prev, dup := first[e.key]
		if !dup {
			first[e.key] = e
			continue
		}
		if prev.file != e.file {
			l.addOnce(&Error{File: e.file, Line: e.line, Col: e.col, Kind: KindDuplicate,
				Message: fmt.Sprintf("%s is already allowed by %s:%d", e.name, prev.file, prev.line)})
		}
	}
}

// ExpandedFiles returns the files entries with their placeholders
// replaced by ctx's values, one entry per value ({runtime} may have
// several) and none for a placeholder without one: the absolute globs
// that enforce (Landlock's RulesFromGlobs) and reports take.
func (p *Profile) ExpandedFiles(ctx FileContext) []FileEntry {
	var out []FileEntry
	for _, e := range p.FileEntries() {
		for _, x := range expand(ctx, e.Pattern, e.repo) {
			c := e
			c.Pattern = x
			out = append(out, c)
		}
	}
	return out
}
