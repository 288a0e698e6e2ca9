package landlock

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// FileGlob is one line of a baseline's `files:` section after placeholder
// expansion: a glob and the accesses it allows. Exec is a file mapped
// executable (shared libraries); Landlock cannot tell that from a read, so
// it becomes read plus EXECUTE (which also covers a loader that is
// exec'd).
type FileGlob struct {
	Glob                      string
	Read, Write, Exec, Delete bool
}

// Widening is a glob that Landlock enforces more loosely than check
// mode: Granted is the directory whose whole tree gets the glob's
// accesses. That is accepted on purpose: check is the gate that reports a
// path outside the globs; enforce proves that the profile does not break
// the agent, so it may allow more but must never allow less.
type Widening struct {
	Glob    string
	Granted string
	Reason  string
}

// Reasons of a Widening.
const (
	WideOneLevel = "Landlock grants a whole tree, not one level"
	WideMeta     = "a pattern in a path component: granted beneath its literal prefix"
	WideNoPrefix = "no literal prefix: granted beneath /"
	WideProcSelf = "a process's /proc entry is a directory of its own, made when it starts (and /proc/self is sysgate's here): granted beneath /proc"
)

// RulesFromGlobs turns `files:` globs into Landlock path rules, without
// touching the file system:
//
//   - a literal path stays as it is (a file or a directory tree);
//   - dir/** becomes dir (exact: a rule on a directory covers its tree);
//   - dir/* becomes dir, wider than check (WideOneLevel);
//   - any other pattern becomes its literal prefix directory, e.g.
//     /usr/lib/x86_64-linux-gnu/*.so* becomes /usr/lib/x86_64-linux-gnu
//     and **/.env becomes / (WideMeta, WideNoPrefix);
//   - anything in a process's /proc entry (/proc/self, /proc/thread-self,
//     /proc/PID, and /proc/net and /proc/mounts, links into self) becomes
//     /proc (WideProcSelf). Opened here, /proc/self is sysgate's own
//     /proc/PID: a rule there gave the agent nothing of its own entry,
//     and each of the agent's processes has its entry, made at its fork;
//     opening /proc/PID/root would put the rule on that process's root.
//     /proc holds them all (ProcRules: on the run's own /proc too). A
//     magic link beneath (fd/N, root, cwd) opens its target, which
//     Landlock checks by the target's own path.
//
// The prefix is chosen over expanding the glob against the file system at
// enforce time: expansion fixes the set when the agent starts, so a file
// the agent creates or a library it installs later would be denied
// although check allows it (enforce narrower than check breaks the agent,
// the one thing enforce exists to rule out); it also costs a walk and one
// rule plus one open file per match (thousands under /usr/lib). A prefix
// is one rule and never narrower.
//
// Rules for the same path are merged. Paths that do not exist are
// NewRuleset's business (skipped, or the parent for a write).
func RulesFromGlobs(globs []FileGlob) ([]PathRule, []Widening) {
	var rules []PathRule
	var wide []Widening
	index := map[string]int{}
	for _, g := range globs {
		path, reason := literalPrefix(g.Glob)
		if reason != "" {
			wide = append(wide, Widening{Glob: g.Glob, Granted: path, Reason: reason})
		}
		r := PathRule{Path: path, Read: g.Read || g.Exec, Write: g.Write, Exec: g.Exec, Delete: g.Delete}
		if i, ok := index[path]; ok {
			m := &rules[i]
			m.Read, m.Write, m.Exec, m.Delete = m.Read || r.Read, m.Write || r.Write, m.Exec || r.Exec, m.Delete || r.Delete
			continue
		}
		index[path] = len(rules)
		rules = append(rules, r)
	}
	return rules, wide
}

// literalPrefix returns the path a glob's rule goes on and why it is
// wider than the glob ("" when exact).
func literalPrefix(glob string) (string, string) {
	parts := strings.Split(filepath.Clean("/"+glob), "/")[1:]
	if len(parts) >= 2 && parts[0] == "proc" && processEntry(parts[1]) {
		return "/proc", WideProcSelf
	}
	for i, p := range parts {
		if !hasMeta(p) {
			continue
		}
		prefix := "/" + strings.Join(parts[:i], "/")
		last := i == len(parts)-1
		switch {
		case i == 0:
			return "/", WideNoPrefix
		case last && p == "**":
			return prefix, ""
		case last && p == "*":
			return prefix, WideOneLevel
		default:
			return prefix, WideMeta
		}
	}
	return filepath.Clean("/" + glob), ""
}

// processEntry reports a first element beneath /proc that is, or leads
// into, one process's entry.
func processEntry(elem string) bool {
	switch elem {
	case "self", "thread-self", "net", "mounts":
		return true
	}
	return elem != "" && strings.Trim(elem, "0123456789") == ""
}

// hasMeta reports whether a path component is a pattern, in the syntax of
// the files: section (path.Match plus ** and {a,b}).
func hasMeta(component string) bool {
	return strings.ContainsAny(component, `*?[{\`)
}

// ProcRule is a rule beneath /proc with the rights the ruleset's ABI
// gives it.
type ProcRule struct {
	Path   string
	Access Access
}

// ProcRules are the rules of rules beneath /proc, for the agent's first
// process to add again on the /proc it sees: a run in a PID namespace of
// its own mounts a procfs of its own over /proc, and a rule sysgate put
// on its /proc (or an entry of it) is on another file system. A rule on
// a file gets only the rights a file takes (its kind is read from
// sysgate's /proc: /proc's layout is the kernel's, not the run's).
func ProcRules(abi int, rules []PathRule) []ProcRule {
	handled := HandledAccess(abi)
	var out []ProcRule
	for _, r := range rules {
		if r.Path != "/proc" && !strings.HasPrefix(r.Path, "/proc/") {
			continue
		}
		access := r.Rights() & handled
		var st unix.Stat_t
		if unix.Stat(r.Path, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= fileRights
		}
		if access != 0 {
			out = append(out, ProcRule{Path: r.Path, Access: access})
		}
	}
	return out
}
