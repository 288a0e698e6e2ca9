package baseline

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// ObservedFile is one path a run touched, with the access and how often.
// Path is absolute, or in the symbolic form FileContext.Abstract writes.
type ObservedFile struct {
	Path  string
	Op    FileOp
	Count uint64
}

// collapseAt is how many files of one access a directory needs before
// record writes it as a glob. Three lines are still quicker to review
// than a glob is to reason about; from four on a listing of names (shared
// libraries, locale files, a package's modules) says less than "this
// directory" and only grows with the next release.
const collapseAt = 4

// GeneraliseFiles turns the paths a run touched into a short list of
// entries a reviewer can read:
//   - a path under {workspace} or {runtime} becomes "{name}/**" for the
//     access seen;
//   - a path under {tmp} is generalised only within what the run made
//     there (see tmpPattern): /tmp is shared with everything else on the
//     machine (ssh-agent sockets, Kerberos caches, other tools' tokens),
//     so its whole tree is never written;
//   - a path in an installed package's tree (node_modules,
//     site-packages, dist-packages) becomes that tree's "/**", and one
//     under /sys/fs/cgroup "/sys/fs/cgroup/**" (see packageTree);
//   - /proc/PID/... of one of ctx.PIDs becomes /proc/self/...;
//   - elsewhere, the deepest directory holding collapseAt or more paths
//     of one access (and no subdirectory that does) becomes "dir/*", or
//     "dir/**" when they lie in subdirectories, but never "/", a top-level
//     directory such as "/etc", or {home} itself;
//   - a glob that would cover a sensitive path is not written: its paths
//     stay literal, and a sensitive path is always written literally too,
//     with UnreviewedReason so that validate asks for a real one. A
//     placeholder glob that covers one ({workspace}/**: write covers
//     .git/hooks) gets UnreviewedReason as well.
//
// The entries are sorted by access, then glob.
func GeneraliseFiles(ctx FileContext, seen []ObservedFile) []FileEntry {
	return generaliseFiles(ctx, seen, madeUnder(ctx, seen))
}

// FixEntry is the entry a fix hint offers for one access outside the
// baselines: what record would write had the run made only it
// (GeneraliseFiles), so a hint never names a checkout, a home or a
// runner's path that a placeholder stands for ("{workspace}/**"), nor a
// random name the next run draws anew (maskRandomSuffix).
func FixEntry(ctx FileContext, p string, op FileOp) FileEntry {
	seen := []ObservedFile{{Path: p, Op: op, Count: 1}}
	if out := GeneraliseFiles(ctx, seen); len(out) > 0 {
		return out[0]
	}
	return FileEntry{Pattern: literalGlob(ctx.Abstract(p)), Op: op}
}

// atomicSuffix is a name with a decimal number of 6 or more digits
// appended after a dot: Python's importlib writes a .pyc to
// "NAME.pyc.<id>" and renames it into place, and other atomic writers
// do likewise with a pid or a clock. The number differs in every run.
var atomicSuffix = regexp.MustCompile(`^(.+\.[^./]+)\.[0-9]{6,}$`)

// maskRandomSuffix writes a literal entry whose last element ends in
// such a number with "*" in its place, so the next run's name matches.
func maskRandomSuffix(pattern string) string {
	if strings.ContainsAny(pattern, "*?") {
		return pattern
	}
	dir, name := path.Split(pattern)
	if m := atomicSuffix.FindStringSubmatch(name); m != nil {
		return dir + m[1] + ".*"
	}
	return pattern
}

// madeUnder are the names the run wrote, abstracted: what it may have
// made under {tmp} (see tmpPattern).
func madeUnder(ctx FileContext, seen []ObservedFile) map[string]bool {
	made := map[string]bool{}
	for _, s := range seen {
		if s.Op == FileWrite {
			made[ctx.Abstract(s.Path)] = true
		}
	}
	return made
}

// generaliseFiles is GeneraliseFiles with the names the run made given
// apart: record judges them from everything the run did, also what a
// base already allows.
func generaliseFiles(ctx FileContext, seen []ObservedFile, made map[string]bool) []FileEntry {
	// byOp: the paths of each access, abstracted; the value says whether
	// the path is sensitive, judged before abstracting (a workspace that
	// is the home would hide {home}/.ssh as {workspace}/.ssh).
	byOp := map[FileOp]map[string]bool{}
	for _, s := range seen {
		if s.Op < FileRead || s.Op > FileDelete {
			continue
		}
		raw := ownProcPath(ctx.PIDs, s.Path)
		p := ctx.Abstract(raw)
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "{") {
			continue
		}
		if byOp[s.Op] == nil {
			byOp[s.Op] = map[string]bool{}
		}
		_, sensitive := SensitivePath(ctx, raw, s.Op)
		byOp[s.Op][p] = byOp[s.Op][p] || sensitive
	}
	var out []FileEntry
	for _, op := range fileOps {
		var rest []string
		placeholderGlobs := map[string]bool{}
		for p, sensitive := range byOp[op] {
			if sensitive {
				out = append(out, FileEntry{Pattern: literalGlob(p), Op: op, Reason: UnreviewedReason})
				continue
			}
			if under, ok := strings.CutPrefix(p, phTmp+"/"); ok {
				// Only what the run made: a shared directory's tree is
				// not the run's to generalise.
				placeholderGlobs[tmpPattern(under, made)] = true
				continue
			}
			if ph, ok := collapsesInto(p); ok {
				placeholderGlobs[ph+"/**"] = true
				continue
			}
			if tree, ok := packageTree(p); ok {
				placeholderGlobs[tree+"/**"] = true
				continue
			}
			rest = append(rest, p)
		}
		for g := range placeholderGlobs {
			// "{tmp}/d/**" holds "{tmp}/d" itself.
			if !placeholderGlobs[g+"/**"] {
				out = append(out, FileEntry{Pattern: g, Op: op})
			}
		}
		slices.Sort(rest)
		for _, g := range collapse(rest, op) {
			out = append(out, FileEntry{Pattern: g, Op: op})
		}
	}
	for i := range out {
		// An entry naming a sensitive path needs a person's reason; a
		// glob that only covers one does not reach it without one.
		for _, h := range sensitiveOverlap(out[i]) {
			if h.names {
				out[i].Reason = UnreviewedReason
				break
			}
		}
	}
	for i := range out {
		if out[i].Reason == "" {
			out[i].Pattern = maskRandomSuffix(out[i].Pattern)
		}
	}
	out = dropCovered(out)
	sortFileEntries(out)
	// Two paths may write as one glob ("/a/b/*" and "/a/b/?" are both
	// "/a/b/?").
	return slices.CompactFunc(out, func(a, b FileEntry) bool { return a.key() == b.key() })
}

// collapsesInto names the placeholder whose whole tree a path's access
// is written as.
func collapsesInto(p string) (string, bool) {
	for _, ph := range []string{phWorkspace, phRuntime} {
		if p == ph || strings.HasPrefix(p, ph+"/") {
			return ph, true
		}
	}
	return "", false
}

// packageTrees are directories whose whole tree one access covers as a
// unit: an installed package's modules (node_modules, site-packages,
// dist-packages), which the next release reshuffles file by file, and
// the cgroup file system, whose paths name the machine's own cgroup.
var packageTrees = []string{"/node_modules/", "/site-packages/", "/dist-packages/"}

// packageTree names the tree a path's access is written as: the first
// package directory on its path ("{repo}/x/node_modules/**"), or
// /sys/fs/cgroup.
func packageTree(p string) (string, bool) {
	if strings.HasPrefix(p, "/sys/fs/cgroup/") {
		return "/sys/fs/cgroup", true
	}
	best := -1
	var tree string
	for _, dir := range packageTrees {
		if i := strings.Index(p, dir); i >= 0 && (best < 0 || i < best) {
			best, tree = i, p[:i+len(dir)-1]
		}
	}
	return tree, best >= 0
}

// ownProcPath writes /proc/PID/... of a run's own process as
// /proc/self/...: the next run has other pids.
func ownProcPath(pids []int, p string) string {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return p
	}
	pid, tail, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(pid)
	if err != nil || !slices.Contains(pids, n) {
		return p
	}
	if tail == "" {
		return "/proc/self"
	}
	return "/proc/self/" + tail
}

// literalGlob writes a path as a glob that matches it: the glob syntax
// has no escapes, so a character it reads specially ("*", "?", a brace)
// or cannot hold (a control character) becomes "?", which still matches
// it.
func literalGlob(p string) string {
	head, rest := "", p
	if strings.HasPrefix(p, "{") {
		end := strings.IndexByte(p, '}')
		head, rest = p[:end+1], p[end+1:]
	}
	return head + strings.Map(func(r rune) rune {
		if strings.ContainsRune("*?{}", r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, rest)
}

// collapse writes sorted paths of one access as globs and literals.
func collapse(paths []string, op FileOp) []string {
	var out []string
	// Paths group by their root: "" for absolute ones, or a placeholder.
	for len(paths) > 0 {
		root := strings.SplitN(paths[0], "/", 2)[0]
		n := 0
		for n < len(paths) && strings.SplitN(paths[n], "/", 2)[0] == root {
			n++
		}
		out = append(out, collapseDir(root, paths[:n], op)...)
		paths = paths[n:]
	}
	return out
}

// collapseDir writes the paths below dir (sorted; dir itself may be one
// of them).
func collapseDir(dir string, paths []string, op FileOp) []string {
	var out []string
	var below []string
	for _, p := range paths {
		if p == dir || (dir == "" && p == "/") {
			out = append(out, literalGlob(p))
			continue
		}
		below = append(below, p)
	}
	children := groupByChild(dir, below)
	busyChild := false
	deep := false
	for _, c := range children {
		if len(c.paths) >= collapseAt {
			busyChild = true
		}
		if len(c.paths) > 1 || (len(c.paths) == 1 && c.paths[0] != c.dir) {
			deep = true
		}
	}
	if !busyChild && len(below) >= collapseAt && collapsible(dir) {
		g := dir + "/*"
		if deep {
			g = dir + "/**"
		}
		if len(sensitiveOverlap(FileEntry{Pattern: g, Op: op})) == 0 {
			return append(out, g)
		}
	}
	for _, c := range children {
		if len(c.paths) == 1 && c.paths[0] == c.dir {
			out = append(out, literalGlob(c.dir))
			continue
		}
		out = append(out, collapseDir(c.dir, c.paths, op)...)
	}
	return out
}

type childPaths struct {
	dir   string
	paths []string
}

// groupByChild groups sorted paths below dir by the child of dir they lie
// in (or are).
func groupByChild(dir string, paths []string) []childPaths {
	var out []childPaths
	for _, p := range paths {
		name, _, _ := strings.Cut(p[len(dir)+1:], "/")
		child := dir + "/" + name
		if n := len(out); n > 0 && out[n-1].dir == child {
			out[n-1].paths = append(out[n-1].paths, p)
			continue
		}
		out = append(out, childPaths{dir: child, paths: []string{p}})
	}
	return out
}

// collapsible: a glob over dir is narrow enough to write. "/" and a
// top-level directory hold too many unrelated things, and a glob over
// {home} would take in every credential a home holds.
func collapsible(dir string) bool {
	elems := strings.Split(dir, "/")
	if elems[0] == "" {
		return len(elems) >= 3 // "/usr/lib", not "/usr"
	}
	return len(elems) >= 2 // "{home}/.cache", not "{home}"
}

// dropCovered removes a literal entry that a glob of the same access
// without a reason of its own already allows: the literal adds a line
// and nothing else. A sensitive literal stays, so its reason is asked
// for.
func dropCovered(entries []FileEntry) []FileEntry {
	m := newFileMatcher(globsOnly(entries), symbolic)
	var out []FileEntry
	for _, e := range entries {
		if compileGlob(e.Pattern).literal() && e.Reason == "" && m.Allows(e.Pattern, e.Op) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func globsOnly(entries []FileEntry) []FileEntry {
	var out []FileEntry
	for _, e := range entries {
		if !compileGlob(e.Pattern).literal() {
			out = append(out, e)
		}
	}
	return out
}

// cleanObserved is an observed path as GeneraliseFiles and Diff compare
// it: cleaned, or "" when it is neither absolute nor symbolic.
func cleanObserved(p string) string {
	rest := p
	if strings.HasPrefix(p, "{") {
		end := strings.IndexByte(p, '}')
		if end < 0 || !isPlaceholder(p[:end+1]) {
			return ""
		}
		if rest = p[end+1:]; rest == "" {
			return p
		}
		if path.Clean(rest) != rest {
			return ""
		}
	}
	if !path.IsAbs(rest) {
		return ""
	}
	if rest != p {
		return p
	}
	return path.Clean(p)
}
