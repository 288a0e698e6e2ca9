package baseline

import (
	"slices"
	"sort"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// A pull request that changes an agent and its baseline in one commit is
// judged against the baseline it brings: Widen says what that baseline
// allows that the base commit's did not, so the widening is a reviewed
// signal of its own rather than one more file in the diff.

// Widened is one thing the new profile allows that the old one did not:
// a syscall or class (Syscall), a program or pattern (Program), a channel
// left unmonitored, or the programs gate dropped. File and Line are the
// new profile's entry (for a dropped gate, the file that had the section
// at the base, line 0).
type Widened struct {
	Kind    WidenKind `json:"kind"`
	Arch    scmp.Arch `json:"arch,omitempty"`
	Syscall string    `json:"syscall,omitempty"`
	Program string    `json:"program,omitempty"`
	// Path is a files entry: "{workspace}/**: write".
	Path    string     `json:"path,omitempty"`
	Pattern bool       `json:"pattern,omitempty"`
	Group   string     `json:"group,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	Risk    risk.Class `json:"risk,omitempty"`
	Level   risk.Level `json:"level,omitempty"`
	// RiskReason: why the risk class is risky ("" when not risky).
	RiskReason string `json:"risk_reason,omitempty"`
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
}

// WidenKind says what a Widened entry widens.
type WidenKind string

// The kinds of widening.
const (
	WidenSyscall     WidenKind = "syscall"
	WidenProgram     WidenKind = "program"
	WidenPin         WidenKind = "pin"         // a program's content pins dropped or changed
	WidenUnmonitored WidenKind = "unmonitored" // a channel the gate no longer watches
	WidenUngated     WidenKind = "ungated"     // programs (or files) no longer gated at all
	WidenFile        WidenKind = "file"        // a files entry the base did not have
	WidenNetwork     WidenKind = "network"     // a network entry the base did not have
)

// Subject is what the entry names: "socket(AF_INET)", a program path.
func (w Widened) Subject() string {
	if w.Kind == WidenSyscall || w.Kind == WidenUnmonitored {
		return w.Syscall
	}
	if w.Path != "" {
		return w.Path
	}
	return w.Program
}

// RiskLabel is the risk as reports print it ("network", "shell, high");
// "" when not risky.
func (w Widened) RiskLabel() string { return w.Risk.Label(w.Level) }

// Widen lists what cur allows that base does not, sorted by file, line
// and subject. A nil base (the files did not exist at the base commit)
// allowed nothing, so every entry of cur widens it. Narrowing (an entry
// removed, a class instead of the whole syscall) is not listed.
func Widen(base, cur *Profile) []Widened {
	var out []Widened
	for _, arch := range cur.Arches() {
		for _, e := range cur.Entries(arch) {
			// Lookup, not the key: a base "socket" already allowed
			// "socket(AF_INET)", while a base "socket(AF_UNIX)" did not
			// allow the argument-blind "socket".
			if base.Allows(arch, e.Name) {
				continue
			}
			// The built-in scheduling group is sysgate's, not the
			// files': it widens only where the base asked for it
			// exactly and the files no longer do.
			if e.Builtin && !base.SchedulingExact() {
				continue
			}
			out = append(out, Widened{Kind: WidenSyscall, Arch: arch, Syscall: e.Name, Group: e.Group, Reason: e.Reason,
				Risk: risk.Of(e.Name), Level: risk.LevelOf(e.Name), RiskReason: riskReasonIf(e.Name), File: e.File, Line: e.Line})
		}
	}
	for _, u := range cur.Unmonitored() {
		if !base.IsUnmonitored(u.Arch, u.Syscall) {
			out = append(out, Widened{Kind: WidenUnmonitored, Arch: u.Arch, Syscall: u.Syscall, Reason: u.Reason,
				Risk: risk.Of(u.Syscall), Level: risk.LevelOf(u.Syscall), RiskReason: u.Unseen, File: u.File, Line: u.Line})
		}
	}
	out = append(out, widenPrograms(base, cur)...)
	out = append(out, widenFiles(base, cur)...)
	out = append(out, widenNetwork(base, cur)...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Subject() < b.Subject()
	})
	return out
}

// widenPrograms: a base without a programs section allowed no program
// entries. On its own it gated none, but the files are layers: a stack
// that puts them over one with the section (the run's -b list, another
// agent's extends) gates what they add, so every entry a pull request
// adds widens, as it does for files and network (issue 43, item 7).
func widenPrograms(base, cur *Profile) []Widened {
	switch {
	case !cur.GatesPrograms() && base.GatesPrograms():
		file := firstDocWith(base, func(d *Document) bool { return d.HasPrograms })
		return []Widened{{Kind: WidenUngated, Reason: "the programs section is gone: every program is allowed", File: file}}
	case !cur.GatesPrograms():
		return nil
	}
	var out []Widened
	for _, e := range cur.Programs() {
		kind, ok := programWidens(base, e)
		if !ok {
			continue
		}
		r, l := risk.OfProgram(e.Path)
		w := Widened{Kind: kind, Program: e.Path, Pattern: e.Pattern, Reason: e.Reason, Risk: r, Level: l, File: e.File, Line: e.Line}
		if r.Risky() {
			w.RiskReason = risk.ProgramReason(e.Path)
		}
		out = append(out, w)
	}
	return out
}

// programWidens says whether base lacks what e allows. A pattern widens
// unless base has the same pattern: telling whether one pattern covers
// another is not worth a wrong "no".
func programWidens(base *Profile, e ProgramEntry) (WidenKind, bool) {
	for _, b := range base.Programs() {
		if b.key() == e.key() {
			return WidenPin, pinsLooser(b.SHA256, e.SHA256)
		}
	}
	if e.Pattern {
		return WidenProgram, true
	}
	b, ok := base.LookupProgram(e.Path)
	if !ok {
		return WidenProgram, true
	}
	// b may be a pattern: it allowed the program, with its pins.
	return WidenPin, pinsLooser(b.SHA256, e.SHA256)
}

// pinsLooser: cur allows contents base did not (no pins where base had
// some, or a hash base did not list).
func pinsLooser(base, cur []string) bool {
	if len(base) == 0 {
		return false
	}
	if len(cur) == 0 {
		return true
	}
	for _, h := range cur {
		if !slices.Contains(base, h) {
			return true
		}
	}
	return false
}

func riskReasonIf(key string) string {
	if !risk.Of(key).Risky() {
		return ""
	}
	return risk.Reason(key)
}
