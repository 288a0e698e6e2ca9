package baseline

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

// FileOp is the kind of access a files entry allows.
type FileOp int

// File accesses. Write covers create, truncate, append, chmod/chown,
// mkdir and the destination of rename, link and symlink; Delete covers
// unlink, rmdir and the source of rename.
const (
	FileRead FileOp = iota + 1
	FileWrite
	FileExec
	FileDelete
)

// fileOps are the accesses in the order a files section lists them.
var fileOps = []FileOp{FileRead, FileWrite, FileExec, FileDelete}

func (op FileOp) String() string {
	switch op {
	case FileRead:
		return "read"
	case FileWrite:
		return "write"
	case FileExec:
		return "exec"
	case FileDelete:
		return "delete"
	}
	return "unknown"
}

// MarshalText writes the access by name, for JSON reports.
func (op FileOp) MarshalText() ([]byte, error) {
	if op < FileRead || op > FileDelete {
		return nil, fmt.Errorf("file access %d: not one of read, write, exec, delete", int(op))
	}
	return []byte(op.String()), nil
}

// UnmarshalText reads an access by name.
func (op *FileOp) UnmarshalText(b []byte) error {
	v, ok := ParseFileOp(string(b))
	if !ok {
		return fmt.Errorf("file access %q: not one of read, write, exec, delete", b)
	}
	*op = v
	return nil
}

// ParseFileOp reads "read", "write", "exec" or "delete".
func ParseFileOp(s string) (FileOp, bool) {
	for _, op := range fileOps {
		if op.String() == s {
			return op, true
		}
	}
	return 0, false
}

// FileContext holds the values of the placeholders of a run: the caller
// fills it (the library reads no environment). An empty value makes the
// entries that use it match nothing.
type FileContext struct {
	Workspace string   // the run's working directory
	Home      string   // the agent's home directory
	Tmp       string   // $TMPDIR, or /tmp
	Runtime   []string // interpreter prefixes (a pyenv version, /usr/lib/python3.11)
	// PIDs are the run's own processes: GeneraliseFiles writes
	// /proc/PID/... of one of them as /proc/self/....
	PIDs []int
	// repo, when set, stands for every file's {repo} (the symbolic form
	// of the overlap check); else each entry's own is used.
	repo string
}

// Placeholder names, as written in braces.
const (
	phWorkspace = "{workspace}"
	phHome      = "{home}"
	phTmp       = "{tmp}"
	phRepo      = "{repo}"
	phRuntime   = "{runtime}"
)

var placeholders = []string{phHome, phRepo, phRuntime, phTmp, phWorkspace}

// symbolic is the context in which each placeholder stands for itself:
// observations keep paths in that form ("{workspace}/out.txt", see
// Abstract) so that shards from machines with different homes merge.
var symbolic = FileContext{Workspace: phWorkspace, Home: phHome, Tmp: phTmp, Runtime: []string{phRuntime}}

// values is what placeholder ph expands to; repo is the {repo} of the
// entry's file.
func (c FileContext) values(ph, repo string) []string {
	switch ph {
	case phWorkspace:
		return nonEmpty(c.Workspace)
	case phHome:
		return nonEmpty(c.Home)
	case phTmp:
		return nonEmpty(c.Tmp)
	case phRepo:
		if c.repo != "" {
			return []string{c.repo}
		}
		return nonEmpty(repo)
	case phRuntime:
		var out []string
		for _, r := range c.Runtime {
			out = append(out, nonEmpty(r)...)
		}
		return out
	}
	return nil
}

func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	if strings.HasPrefix(v, "{") {
		return []string{v}
	}
	return []string{path.Clean(v)}
}

// Abstract writes an absolute path with the placeholder whose value is
// its longest prefix: "/home/runner/work/x/out.txt" is
// "{workspace}/out.txt" when the workspace is /home/runner/work/x, even
// though the home holds it too. A path under no placeholder is returned
// cleaned.
func (c FileContext) Abstract(p string) string {
	if p == "" || strings.HasPrefix(p, "{") {
		return p
	}
	p = path.Clean(p)
	best, bestLen := "", 0
	for _, ph := range []string{phWorkspace, phTmp, phRuntime, phHome} {
		for _, v := range c.values(ph, "") {
			if v == "/" || strings.HasPrefix(v, "{") {
				continue
			}
			if (p == v || strings.HasPrefix(p, v+"/")) && len(v) > bestLen {
				best, bestLen = ph, len(v)
			}
		}
	}
	if best == "" {
		return p
	}
	return best + p[bestLen:]
}

// abstractions are every way to write p: as given (cleaned), and from
// each placeholder whose value holds it, so that a workspace that is the
// home, or lies in it, hides no {home} row.
func (c FileContext) abstractions(p string) []string {
	if p == "" || strings.HasPrefix(p, "{") {
		return []string{p}
	}
	p = path.Clean(p)
	out := []string{p}
	for _, ph := range []string{phWorkspace, phTmp, phRuntime, phHome} {
		for _, v := range c.values(ph, "") {
			if v != "/" && !strings.HasPrefix(v, "{") && (p == v || strings.HasPrefix(p, v+"/")) {
				out = append(out, ph+p[len(v):])
			}
		}
	}
	return out
}

// glob is a compiled files pattern: path elements, where "**" is any
// number of elements (none included), "*" any run of characters within
// one element and "?" one character; everything else is literal.
type glob []string

// compileGlob splits an expanded pattern. A leading "/**" keeps its
// empty root element, so "/**/.env" also matches a symbolic path such as
// "{workspace}/.env" (see match).
func compileGlob(p string) glob {
	if p == "/" {
		return glob{""}
	}
	return glob(strings.Split(p, "/"))
}

func (g glob) literal() bool {
	for _, e := range g {
		if strings.ContainsAny(e, "*?") {
			return false
		}
	}
	return true
}

// match reports whether name (split like a glob) matches g.
func (g glob) match(name []string) bool {
	if len(g) >= 2 && g[0] == "" && g[1] == "**" {
		// "/**/x" is "x anywhere": under "/" or under a placeholder.
		return matchElems(g[1:], name)
	}
	return matchElems(g, name)
}

// matchElems is matchElem one level up: "**" is to elements what "*" is
// to characters, so the same single-backtrack walk applies, and a glob
// with many "**" costs at most len(g)*len(name) steps on a path an agent
// chose, never an exponential search.
func matchElems(g glob, name []string) bool {
	gi, ni, star, mark := 0, 0, -1, 0
	for ni < len(name) {
		switch {
		case gi < len(g) && g[gi] == "**":
			star, mark = gi, ni
			gi++
		case gi < len(g) && matchElem(g[gi], name[ni]):
			gi++
			ni++
		case star >= 0:
			gi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for gi < len(g) && g[gi] == "**" {
		gi++
	}
	return gi == len(g)
}

// matchElem matches one element: "*" any run, "?" one character, no
// classes.
func matchElem(pat, s string) bool {
	if !strings.ContainsAny(pat, "*?") {
		return pat == s
	}
	if isASCII(pat) && isASCII(s) {
		return matchWild([]byte(pat), []byte(s))
	}
	// "?" is one character, not one byte of it.
	return matchWild([]rune(pat), []rune(s))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// matchWild is an iterative wildcard match with one backtrack point:
// at most len(pat)*len(s) steps, never recursive on input an agent
// controls.
func matchWild[C byte | rune](pat, s []C) bool {
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(pat) && pat[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(pat) && (pat[pi] == '?' || pat[pi] == s[si]):
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}

// splitPath splits a cleaned absolute or symbolic path into elements.
func splitPath(p string) []string {
	if p == "/" {
		return []string{""}
	}
	return strings.Split(p, "/")
}

// expand replaces the entry's leading placeholder with each of its values
// in ctx; nil when the placeholder has none.
func expand(ctx FileContext, pattern, repo string) []string {
	if !strings.HasPrefix(pattern, "{") {
		return []string{pattern}
	}
	end := strings.IndexByte(pattern, '}')
	if end < 0 {
		return nil
	}
	var out []string
	for _, v := range ctx.values(pattern[:end+1], repo) {
		rest := pattern[end+1:]
		if v == "/" && rest != "" {
			v = ""
		}
		out = append(out, v+rest)
	}
	return out
}

func sortFileEntries(entries []FileEntry) {
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Op != entries[j].Op {
			return entries[i].Op < entries[j].Op
		}
		return entries[i].Pattern < entries[j].Pattern
	})
}
