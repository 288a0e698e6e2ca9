package baseline

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ProgramEntry is one line of a baseline's programs section: an
// executable the agent's processes may run. Path is absolute after
// loading (a relative line is relative to the file's directory) and may
// be a pattern (path.Match syntax, matched one path element at a time: "*"
// and "[...]" never cross a "/"); a pattern needs a reason.
type ProgramEntry struct {
	Path    string // absolute; the pattern when Pattern is set
	Written string // as the file has it
	Pattern bool
	// Runtime is a placeholder entry's runtime ("python" for "{python}",
	// whose Path is then "{python}"): it allows what the profile binds
	// the placeholder to (programs_runtime.go), and matches no path
	// by itself.
	Runtime string
	Reason  string
	// SHA256 are the contents (lowercase hex sha256) the program may
	// have; empty pins nothing (see programs_pin.go).
	SHA256      []string
	Comment     string
	LineComment string
	File        string
	Line, Col   int
}

// programKey tells entries apart: the pattern "/usr/bin/*" is not the
// program written "/usr/bin/\*", though both have that Path.
type programKey struct {
	path    string
	pattern bool
}

func (e ProgramEntry) key() programKey { return programKey{e.Path, e.Pattern} }

// Matches reports whether the entry allows the program at p (an absolute,
// symlink-resolved path).
func (e ProgramEntry) Matches(p string) bool {
	if e.Runtime != "" {
		return false
	}
	if !e.Pattern {
		return e.Path == p
	}
	return matchElements(e.Path, p)
}

// matchElements is path.Match applied per path element. path.Match alone
// lets a class such as "[^a]" match a "/", which would let a pattern
// reach into a directory its author never named.
func matchElements(pattern, name string) bool {
	pe, ne := strings.Split(pattern, "/"), strings.Split(name, "/")
	if len(pe) != len(ne) {
		return false
	}
	for i := range pe {
		if ok, err := path.Match(pe[i], ne[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// hasMeta reports whether written holds an unescaped "*", "?" or "[":
// whether it is a pattern.
func hasMeta(written string) bool {
	for i := 0; i < len(written); i++ {
		switch written[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescapeMeta reads a written path that is not a pattern: "\c" is c, as
// in path.Match, so "/usr/bin/\[" names the program "[".
func unescapeMeta(written string) string {
	if !strings.Contains(written, `\`) {
		return written
	}
	var b strings.Builder
	for i := 0; i < len(written); i++ {
		if written[i] == '\\' && i+1 < len(written) {
			i++
		}
		b.WriteByte(written[i])
	}
	return b.String()
}

// escapeMeta writes p so that it reads back as exactly p, not a pattern.
func escapeMeta(p string) string {
	if !strings.ContainsAny(p, `\*?[`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`\*?[`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// resolveProgram turns a written program into the absolute path or
// pattern it allows; dir is the baseline file's directory (programDir).
func resolveProgram(dir, written string) (resolved string, pattern bool) {
	if !hasMeta(written) {
		p := unescapeMeta(written)
		if !path.IsAbs(p) {
			p = path.Join(filepath.ToSlash(dir), p)
		}
		return path.Clean(p), false
	}
	if !path.IsAbs(written) {
		written = path.Join(escapeMeta(filepath.ToSlash(dir)), written)
	}
	return path.Clean(written), true
}

// programDir is the directory a baseline file's relative programs start
// from: absolute and with symlinks resolved, as the kernel resolves the
// programs an observation names.
func programDir(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		dir = filepath.Dir(file)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// written is the entry as Format writes it.
func (e ProgramEntry) written() string {
	switch {
	case e.Written != "":
		return e.Written
	case e.Pattern:
		return e.Path
	}
	return escapeMeta(e.Path)
}

func sortPrograms(entries []ProgramEntry) {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].written() < entries[j].written() })
}

// validPattern reports whether path.Match accepts elem as a pattern.
func validPattern(elem string) bool {
	_, err := path.Match(elem, "")
	return err == nil
}

// writtenProgram is how record writes prog into the baseline at file:
// relative to the file's directory when prog lies in the git work tree
// that holds the file (a clone anywhere else still finds the agent's own
// scripts), else absolute; escaped so that it never reads as a pattern.
func writtenProgram(file, prog string) string {
	dir := programDir(file)
	if root := workTree(dir); root != "" && within(root, prog) {
		if rel, err := filepath.Rel(dir, prog); err == nil {
			return escapeMeta(filepath.ToSlash(rel))
		}
	}
	return escapeMeta(prog)
}

// workTree is the nearest directory from dir up holding a ".git" entry
// (a directory, or the file of a linked worktree or a submodule); "" when
// there is none.
func workTree(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// within reports whether the absolute path p lies below dir.
func within(dir, p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
