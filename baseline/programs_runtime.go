package baseline

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A programs entry may be a runtime placeholder alone: "{python}" allows
// the CPython interpreter the run's command starts, wherever it lies
// (/usr/bin/python3.11 here, a pyenv version or a runner's tool cache
// elsewhere), so one baseline serves every machine of the same
// environment class. The harness binds the placeholders for a run from
// the environment it read before the run, from the caller's command
// (Profile.BindRuntimes, RuntimeProgramsOf): never from what the agent
// ran, so the agent cannot make a program "the runtime". Record writes
// the placeholder for the programs the placeholders stood for in its
// runs (Observation.RuntimePrograms).

// ProgramPlaceholders are the placeholders a programs entry may be, with
// what each allows. {go} is not one: a Go program's runtime is compiled
// into it, so there is no interpreter to name.
var ProgramPlaceholders = map[string]string{
	"python":  "the CPython interpreter the run's command starts",
	"node":    "the Node.js the run's command starts",
	"runtime": "any interpreter the run's command starts ({python} or {node})",
}

// RuntimePrograms are the programs the runtime placeholders stand for in
// a run, by runtime name ("python", "node"): absolute paths with symlinks
// resolved, as the programs an observation names. {runtime} stands for
// all of them.
type RuntimePrograms map[string][]string

// RuntimeProgramsOf is what the placeholders stand for in an environment
// read before a run: the path of each of its runtimes that has one.
func RuntimeProgramsOf(env Environment) RuntimePrograms {
	b := RuntimePrograms{}
	for _, r := range env.Runtimes {
		if r.Name == "" || !path.IsAbs(r.Path) {
			continue
		}
		p := r.Path
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		b.add(r.Name, p)
	}
	return b
}

func (b *RuntimePrograms) add(name, prog string) {
	if *b == nil {
		*b = RuntimePrograms{}
	}
	if !slices.Contains((*b)[name], prog) {
		(*b)[name] = append((*b)[name], prog)
		slices.Sort((*b)[name])
	}
}

// paths are the programs the placeholder name ("python", "runtime")
// stands for.
func (b RuntimePrograms) paths(name string) []string {
	if name != "runtime" {
		return b[name]
	}
	var all []string
	for _, list := range b {
		all = append(all, list...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// nameOf is the runtime prog is ("python"), "" when none: the first name
// in order when two runtimes share a program.
func (b RuntimePrograms) nameOf(prog string) string {
	names := make([]string, 0, len(b))
	for name := range b {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, known := ProgramPlaceholders[name]; known && slices.Contains(b[name], prog) {
			return name
		}
	}
	return ""
}

// matchesBound reports whether e allows prog with the placeholders bound
// to b: a placeholder entry allows only what it stands for.
func (e ProgramEntry) matchesBound(prog string, b RuntimePrograms) bool {
	if e.Runtime != "" {
		return slices.Contains(b.paths(e.Runtime), prog)
	}
	return e.Matches(prog)
}

// BindRuntimes returns p with its programs' placeholders standing for b's
// programs; p itself is unchanged (a cached profile serves many runs). A
// profile never bound lets a placeholder entry allow nothing.
func (p *Profile) BindRuntimes(b RuntimePrograms) *Profile {
	if p == nil {
		return nil
	}
	q := *p
	q.runtimes = b
	if q.runtimes == nil {
		q.runtimes = RuntimePrograms{}
	}
	return &q
}

// ProgramPaths are the programs and patterns the profile allows, each
// placeholder replaced by the programs it stands for: what Landlock is
// given.
func (p *Profile) ProgramPaths() []string {
	var out []string
	for _, e := range p.Programs() {
		if e.Runtime != "" {
			out = append(out, p.runtimes.paths(e.Runtime)...)
			continue
		}
		out = append(out, e.Path)
	}
	return out
}

// placeholderProgram reads a programs entry written as a placeholder
// ("{python}") into e; false, with the problem reported, when it is no
// known placeholder alone or carries a content pin.
func (p *parser) placeholderProgram(e *ProgramEntry, written string, at *yaml.Node) bool {
	name := strings.TrimSuffix(strings.TrimPrefix(written, "{"), "}")
	switch {
	case name == "go" && written == "{go}":
		p.add(at, KindProgram, "{go} is no programs placeholder: a Go program's runtime is compiled into it; list the program itself (known: %s)", programPlaceholderNames())
		return false
	case "{"+name+"}" != written || strings.ContainsAny(name, "{}"):
		p.add(at, KindProgram, "%s: a placeholder stands alone in programs: write exactly %s, or a path (for a file whose name starts with \"{\", write ./%s)",
			written, programPlaceholderNames(), written)
		return false
	}
	if _, known := ProgramPlaceholders[name]; !known {
		p.add(at, KindProgram, "unknown placeholder %s in programs (known: %s)", written, programPlaceholderNames())
		return false
	}
	if len(e.SHA256) > 0 {
		p.add(at, KindProgram, "%s stands for whichever interpreter the run's command starts and cannot pin a content: drop its sha256, or list the interpreter by path to pin it", written)
		return false
	}
	e.Runtime, e.Path, e.Pattern = name, written, false
	return true
}

// placeholderEntry is the entry record writes for the runtime name.
func placeholderEntry(name, file string) ProgramEntry {
	w := "{" + name + "}"
	return ProgramEntry{Path: w, Written: w, Runtime: name, File: file}
}

func programPlaceholderNames() string {
	names := make([]string, 0, len(ProgramPlaceholders))
	for k := range ProgramPlaceholders {
		names = append(names, "{"+k+"}")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
