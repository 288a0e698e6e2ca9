package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// programChange is one program only one side of a diff has: an
// observation's program, or a baseline's entry (a pattern, maybe) that
// nothing on the other side matches.
type programChange struct {
	program string
	pattern bool
	added   bool
	count   uint64 // from the NEW side when it is an observation
	risk    risk.Class
	level   risk.Level
}

// programsOf is an observation's programs as entries, with their counts.
func programsOf(o *baseline.Observation) ([]baseline.ProgramEntry, map[string]uint64) {
	var out []baseline.ProgramEntry
	for _, p := range o.ProgramNames() {
		out = append(out, baseline.ProgramEntry{Path: p})
	}
	return out, o.Programs
}

// diffPrograms compares the programs of two sides: nil when neither says
// anything about programs (a baseline without a programs section, an
// observation that saw none).
func diffPrograms(old, cur *syscallSet) (changes []programChange, shown bool) {
	if !old.hasPrograms && !cur.hasPrograms {
		return nil, false
	}
	for _, e := range cur.programs {
		if !coveredBy(e, old.programs) {
			changes = append(changes, newProgramChange(e, true, cur.programCounts[e.Path]))
		}
	}
	for _, e := range old.programs {
		if !coveredBy(e, cur.programs) {
			changes = append(changes, newProgramChange(e, false, 0))
		}
	}
	sort.Slice(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		if a.added != b.added {
			return a.added
		}
		return a.program < b.program
	})
	return changes, true
}

func newProgramChange(e baseline.ProgramEntry, added bool, count uint64) programChange {
	r, l := risk.OfProgram(e.Path)
	return programChange{program: e.Path, pattern: e.Pattern, added: added, count: count, risk: r, level: l}
}

// coveredBy reports whether one of others names what e names: the same
// path or pattern, or a pattern matching e's program (and the other way).
func coveredBy(e baseline.ProgramEntry, others []baseline.ProgramEntry) bool {
	for _, o := range others {
		if (o.Path == e.Path && o.Pattern == e.Pattern) || (o.Pattern && !e.Pattern && o.Matches(e.Path)) || (e.Pattern && !o.Pattern && e.Matches(o.Path)) {
			return true
		}
	}
	return false
}

func (ch programChange) label() string {
	if ch.pattern {
		return untrusted.Terminal(ch.program) + " (pattern)"
	}
	return untrusted.Terminal(ch.program)
}

func (ch programChange) riskTag() string {
	if !ch.risk.Risky() {
		return ""
	}
	return ch.risk.Label(ch.level) + ": " + risk.ProgramReason(ch.program)
}

func (ch programChange) isAdded() bool { return ch.added }

func writeProgramsText(w io.Writer, changes []programChange) {
	if len(changes) > 0 {
		fmt.Fprintln(w, "programs:")
	}
	for _, ch := range changes {
		line := "  " + sign(ch.added) + " " + ch.label()
		if ch.count > 0 {
			line += " (" + ci.Count(ch.count, "exec", "execs") + ")"
		}
		if tag := ch.riskTag(); tag != "" {
			line += " [risky: " + tag + "]"
		}
		fmt.Fprintln(w, line)
	}
}

func writeProgramsMarkdown(w io.Writer, changes []programChange) {
	added, removed := countChanges(changes)
	fmt.Fprintf(w, "\n#### Programs: %d new, %d removed\n", added, removed)
	if len(changes) == 0 {
		fmt.Fprintln(w, "\nNo change.")
		return
	}
	fmt.Fprintln(w, "\n| change | program | execs | risk |")
	fmt.Fprintln(w, "|---|---|---:|---|")
	var risky []string
	for _, ch := range changes {
		change, execs, risk := "removed", "", ""
		if ch.added {
			change = "**new**"
		}
		if ch.count > 0 {
			execs = fmt.Sprint(ch.count)
		}
		if tag := ch.riskTag(); tag != "" {
			risk = "⚠️ " + tag
		}
		// An observation's programs are paths the agent chose.
		program := untrusted.MarkdownCellCode(ch.program)
		if ch.pattern {
			program += " (pattern)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", change, program, execs, risk)
		if ch.added && ch.risk.Risky() {
			risky = append(risky, untrusted.MarkdownCode(ch.program))
		}
	}
	if len(risky) > 0 {
		fmt.Fprintf(w, "\n> [!WARNING]\n> New risky programs need a reviewed reason in the baseline: %s.\n", strings.Join(risky, ", "))
	}
}
