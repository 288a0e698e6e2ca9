package baseline

import (
	"encoding/hex"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A program entry's sha256 pins it by content: a path alone lets an agent
// that can write the listed file run another program under its name. An
// exact entry holds the content it was recorded with (several, when runs
// on different machines were merged); a pattern holds one per matched
// file that ran. An entry without one matches by path only, as before.
//
// Programs of the run's workspace (the repository's own: agent.py, its
// scripts) are not pinned by record: a pin there made every edit of the
// agent a failing gate, while the same code moved into a module it
// imports was not pinned at all. What must not happen is the agent
// changing such a program during the run, and the run holds them to
// their content at its start (harness: heldPrograms). An edit in a pull
// request is judged by review and by what the edited code then does. A
// pin a person writes for one still holds. The repository is the git
// work tree that holds the baseline file (InRepository); the harness
// also holds what lies in the run's directory (HeldPrograms).

// pinned reports whether sum (lowercase hex) is one of the entry's
// recorded contents; true for an entry that pins nothing.
func (e ProgramEntry) pinned(sum string) bool {
	return len(e.SHA256) == 0 || slices.Contains(e.SHA256, sum)
}

// CheckContent says what is wrong with running the program at prog whose
// content hashes to sum ("" when unreadable) under entry e: "" when e
// pins nothing or sum is one of its contents.
func (e ProgramEntry) CheckContent(prog, sum string) string {
	if len(e.SHA256) == 0 || (sum != "" && e.pinned(sum)) {
		return ""
	}
	got := "unreadable to sysgate"
	if sum != "" {
		got = "sha256 " + sum
	}
	return prog + " is " + got + "; " + e.File + ":" + strconv.Itoa(e.Line) + " pins sha256 " + strings.Join(e.SHA256, " or ") +
		" (the file was replaced; record again only if the agent is meant to run the new one)"
}

// validSHA256 reports whether s is a sha256 as record writes it: 64
// lowercase hex digits.
func validSHA256(s string) bool {
	if len(s) != 64 || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// addSHA256 adds sums to the entry's, sorted, each once.
func (e *ProgramEntry) addSHA256(sums ...string) {
	for _, s := range sums {
		if s != "" && !slices.Contains(e.SHA256, s) {
			e.SHA256 = append(e.SHA256, s)
		}
	}
	slices.Sort(e.SHA256)
}

// programSHA256 reads "sha256: HEX" or a list of them into e.
func (p *parser) programSHA256(v *yaml.Node, e *ProgramEntry) bool {
	nodes := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		nodes = v.Content
	}
	for _, n := range nodes {
		s, ok := p.scalar(n, "program sha256")
		if !ok {
			return false
		}
		if !validSHA256(s) {
			p.add(n, KindSchema, "sha256 %q is not 64 lowercase hex digits (record writes it; `sha256sum FILE` prints it)", s)
			return false
		}
		if slices.Contains(e.SHA256, s) {
			p.add(n, KindDuplicate, "sha256 %s given twice in a program entry", s)
			return false
		}
		e.SHA256 = append(e.SHA256, s)
	}
	slices.Sort(e.SHA256)
	return true
}

// AddProgramSHA256 notes that the program at p ran with content sum.
func (o *Observation) AddProgramSHA256(p, sum string) {
	if sum == "" {
		return
	}
	if o.ProgramSHA256 == nil {
		o.ProgramSHA256 = map[string][]string{}
	}
	if !slices.Contains(o.ProgramSHA256[p], sum) {
		o.ProgramSHA256[p] = append(o.ProgramSHA256[p], sum)
		slices.Sort(o.ProgramSHA256[p])
	}
}

// AddHeldProgram notes that the program at p ran from the run's
// workspace (see HeldPrograms).
func (o *Observation) AddHeldProgram(p string) {
	if !slices.Contains(o.HeldPrograms, p) {
		o.HeldPrograms = append(o.HeldPrograms, p)
		slices.Sort(o.HeldPrograms)
	}
}

// held: a file may list them in any order.
func (o *Observation) held(p string) bool { return slices.Contains(o.HeldPrograms, p) }

// PinChange is a program entry whose content pins record changed: the
// sums it had and the ones it has now (none: no longer pinned, the
// program being one of the workspace's, held to its content at each
// run's start instead).
type PinChange struct {
	File     string
	Line     int
	Program  string // the entry as written
	Old, New []string
	Held     bool // a program of the workspace matched the entry
}

// String is one line for record's report: "../agent.py: pin dropped
// (a program of the workspace, held to its content at each run's
// start)", "/opt/tool: sha256 ab12… → cd34…".
func (c PinChange) String() string {
	if len(c.New) == 0 && c.Held {
		return c.Program + ": pin dropped (a program of the workspace, held to its content at each run's start)"
	}
	return c.Program + ": sha256 " + shortSums(c.Old) + " → " + shortSums(c.New)
}

func shortSums(sums []string) string {
	if len(sums) == 0 {
		return "none"
	}
	out := make([]string, len(sums))
	for i, s := range sums {
		out[i] = s[:min(12, len(s))] + "…"
	}
	return strings.Join(out, ", ")
}

// InRepository reports whether the program at prog lies in the git work
// tree that holds the baseline file at file: one of the repository's own
// programs, held to its content at each run's start rather than pinned.
func InRepository(file, prog string) bool {
	root := workTree(programDir(file))
	return root != "" && root != "/" && within(root, prog)
}

// WorkTreeOf is the git work tree that holds the file at p (the nearest
// directory up with a ".git" entry), "" when none does.
func WorkTreeOf(p string) string { return workTree(filepath.Dir(p)) }
