package ci

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// UnmonitoredBanner heads every report of a run whose baselines let
// through a channel the filter cannot see: a clean verdict then covers
// only what the filter saw.
const UnmonitoredBanner = "UNMONITORED: the baselines let through channels the seccomp filter cannot see; " +
	"what the agent did through them went unseen, and a clean verdict does not cover it"

// writeBanner writes a run's unmonitored banner for a terminal.
func writeBanner(b *strings.Builder, r *verdict.Result) {
	if len(r.Unmonitored) == 0 {
		return
	}
	fmt.Fprintf(b, "  %s:\n", UnmonitoredBanner)
	for _, u := range r.Unmonitored {
		fmt.Fprintf(b, "    %s %s: %s unseen (%s; %s:%d)\n", u.Arch, u.Syscall, u.Unseen, u.Reason, u.File, u.Line)
	}
}

// writeRefused writes a run's refused attempts for a terminal.
func writeRefused(b *strings.Builder, r *verdict.Result) {
	if len(r.Refused) > 0 {
		fmt.Fprintf(b, "\nRefused (channels the filter cannot see; not added to any baseline):\n")
		for _, f := range r.Refused {
			fmt.Fprintf(b, "  %s %s x%d: %s\n", f.Arch, f.Syscall, f.Count, refusedWhy(f))
		}
	}
}

// refusedWhy says what a refused call got and why.
func refusedWhy(f baseline.Finding) string {
	c, ok := baseline.ChannelOf(f.Syscall)
	if !ok {
		return "refused"
	}
	errno := unix.ErrnoName(c.Errno)
	if c.Listener {
		return fmt.Sprintf("refused with a listener (%s): %s would go unseen; filters without a listener stay allowed", errno, c.Unseen)
	}
	return fmt.Sprintf("refused (%s): %s would go unseen; list it under unmonitored with a reason only if the agent needs it", errno, c.Unseen)
}

// unmonitoredRow is an unmonitored channel of an agent's runs.
type unmonitoredRow struct {
	Agent string
	baseline.Unmonitored
}

// unmonitoredRows lists each agent's unmonitored channels once.
func (r *Report) unmonitoredRows() []unmonitoredRow {
	seen := map[unmonitoredRow]bool{}
	var out []unmonitoredRow
	for _, run := range r.gateRuns() {
		for _, u := range run.Unmonitored {
			u.File = r.baselinePath(run, u.File)
			row := unmonitoredRow{run.Agent, u}
			if !seen[row] {
				seen[row] = true
				out = append(out, row)
			}
		}
	}
	return out
}

// refusedRow is a channel an agent tried and was refused.
type refusedRow struct {
	Agent string
	baseline.Finding
}

// refusedRows sums each agent's refused attempts over its runs.
func (r *Report) refusedRows() []refusedRow {
	var out []refusedRow
	index := map[[3]string]int{}
	for _, run := range r.gateRuns() {
		for _, f := range run.Refused {
			k := [3]string{run.Agent, f.Arch.String(), f.Syscall}
			if i, ok := index[k]; ok {
				out[i].Count += f.Count
				continue
			}
			index[k] = len(out)
			out = append(out, refusedRow{run.Agent, f})
		}
	}
	return out
}

// unseenAnnotations are a warning on each unmonitored baseline entry and a
// notice per refused channel.
func (r *Report) unseenAnnotations() []Annotation {
	var out []Annotation
	for _, u := range r.unmonitoredRows() {
		out = append(out, Annotation{Level: "warning", File: u.File, Line: u.Line,
			Title:   fmt.Sprintf("sysgate: %s (%s) unmonitored for %s", u.Syscall, u.Arch, u.Agent),
			Message: fmt.Sprintf("%s went unseen: the baseline lets %s through (%s). A clean verdict does not cover it.", u.Unseen, u.Syscall, u.Reason)})
	}
	for _, f := range r.refusedRows() {
		out = append(out, Annotation{Level: "notice",
			Title:   fmt.Sprintf("sysgate: %s (%s) refused for %s", f.Syscall, f.Arch, f.Agent),
			Message: fmt.Sprintf("%s tried %s (x%d): %s.", f.Agent, f.Syscall, f.Count, refusedWhy(f.Finding))})
	}
	return out
}

// writeUnseenSummary is the step summary's banner and refused table.
func (r *Report) writeUnseenSummary(b *strings.Builder) {
	if rows := r.unmonitoredRows(); len(rows) > 0 {
		fmt.Fprintf(b, "> [!WARNING]\n> **%s.**\n\n", UnmonitoredBanner)
		b.WriteString("| Agent | Arch | Syscall | Went unseen | Reason | Entry |\n|---|---|---|---|---|---|\n")
		for _, u := range rows {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", cell(u.Agent), cell(u.Arch.String()), code(u.Syscall), cell(u.Unseen),
				cell(u.Reason), Location(u.File, u.Line))
		}
		b.WriteString("\n")
	}
	if rows := r.refusedRows(); len(rows) > 0 {
		b.WriteString("### Refused channels\n\nThe agent tried a channel the filter cannot see; it was refused, so what it did instead is in this report.\n\n")
		b.WriteString("| Agent | Arch | Syscall | Calls | Refused |\n|---|---|---|--:|---|\n")
		for _, f := range rows {
			fmt.Fprintf(b, "| %s | %s | %s | %d | %s |\n", cell(f.Agent), cell(f.Arch.String()), code(f.Syscall), f.Count, cell(refusedWhy(f.Finding)))
		}
		b.WriteString("\n")
	}
}
