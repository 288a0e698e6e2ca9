package cli

import (
	"fmt"
	"io"
	"sort"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// netChange is a network entry (a baseline's pattern, or an observation's
// destination as the report names it) on one side only.
type netChange struct {
	op    baseline.NetOp
	dest  string
	by    string // the entry's by:, or the observation's program
	count uint64 // from the NEW side when it is an observation
	added bool
	// risk, level, why: what makes a new entry risky (baseline.NetworkRisk).
	risk  risk.Class
	level risk.Level
	why   string
}

func (ch netChange) isAdded() bool { return ch.added }

func (ch netChange) key() string { return ch.op.String() + " " + ch.dest + " by " + ch.by }

// networkOfProfile are a baseline's network entries.
func networkOfProfile(p *baseline.Profile) []netChange {
	var out []netChange
	for _, e := range p.NetworkEntries() {
		out = append(out, netChange{op: e.Op, dest: e.Pattern, by: e.By})
	}
	return out
}

// networkOfObservation are an observation's destinations, by call,
// destination and program, counted.
func networkOfObservation(o *baseline.Observation) []netChange {
	index := map[string]int{}
	var out []netChange
	for _, d := range o.NetworkList() {
		ch := netChange{op: d.Op, dest: d.Dest.String(), by: d.Program, count: d.Count}
		if i, ok := index[ch.key()]; ok {
			out[i].count += ch.count
			continue
		}
		index[ch.key()] = len(out)
		out = append(out, ch)
	}
	return out
}

// diffNetwork lists the network entries only one side has; shown: either
// side has a network section (or observed the network).
func diffNetwork(old, cur *syscallSet) (changes []netChange, shown bool) {
	if !old.hasNetwork && !cur.hasNetwork {
		return nil, false
	}
	before, after := map[string]bool{}, map[string]bool{}
	for _, e := range old.network {
		before[e.key()] = true
	}
	for _, e := range cur.network {
		after[e.key()] = true
		if !before[e.key()] {
			e.added = true
			e.risk, e.level, e.why = baseline.NetworkRisk(baseline.NetworkEntry{Pattern: e.dest, Op: e.op, By: e.by})
			changes = append(changes, e)
		}
	}
	for _, e := range old.network {
		if !after[e.key()] {
			e.count = 0 // counts are the new side's
			changes = append(changes, e)
		}
	}
	sort.SliceStable(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		if a.added != b.added {
			return a.added
		}
		return a.key() < b.key()
	})
	return changes, true
}

func (ch netChange) text() string {
	s := ch.op.String() + " " + ch.dest
	if ch.by != "" {
		s += " by " + ch.by
	}
	return s
}

func writeNetworkText(w io.Writer, changes []netChange) {
	if len(changes) > 0 {
		fmt.Fprintln(w, "network:")
	}
	for _, ch := range changes {
		// An observation's destinations and programs are a run's output.
		line := "  " + sign(ch.added) + " " + untrusted.Terminal(ch.text())
		switch {
		case ch.count == 1:
			line += " (1 call)"
		case ch.count > 1:
			line += fmt.Sprintf(" (%d calls)", ch.count)
		}
		if ch.risk.Risky() {
			line += " [risky: " + ch.risk.Label(ch.level) + ": " + ch.why + "]"
		}
		fmt.Fprintln(w, line)
	}
}

func writeNetworkMarkdown(w io.Writer, changes []netChange) {
	added, removed := countChanges(changes)
	fmt.Fprintf(w, "\n#### Network: %d new, %d removed\n", added, removed)
	if len(changes) == 0 {
		fmt.Fprintln(w, "\nNo change.")
		return
	}
	fmt.Fprintln(w, "\n| change | call | destination | by | calls | risk |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---|")
	for _, ch := range changes {
		change, by, calls, risk := "removed", "", "", ""
		if ch.added {
			change = "**new**"
		}
		if ch.by != "" {
			by = untrusted.MarkdownCellCode(ch.by)
		}
		if ch.count > 0 {
			calls = fmt.Sprint(ch.count)
		}
		if ch.risk.Risky() {
			risk = "⚠️ " + untrusted.Markdown(ch.risk.Label(ch.level)+": "+ch.why)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", change, ch.op, untrusted.MarkdownCellCode(ch.dest), by, calls, risk)
	}
}
