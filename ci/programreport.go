package ci

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// programRow is one program outside an agent's baselines, merged over
// its runs: execs add up, the first run's exec stays.
type programRow struct {
	Agent string
	verdict.ProgramViolation
	Runs int
}

// programRows merges the program violations of all runs of an agent;
// mismatches lead, then high risks, other risks, and the rest.
func (r *Report) programRows() []programRow {
	var out []programRow
	index := map[[3]string]int{}
	for _, run := range r.gateRuns() {
		for _, v := range run.ProgramViolations {
			key := [3]string{run.Agent, v.Path, v.Mismatch}
			if i, ok := index[key]; ok {
				out[i].Count += v.Count
				out[i].Runs++
				continue
			}
			index[key] = len(out)
			v.File = r.baselinePath(run, v.File)
			out = append(out, programRow{Agent: run.Agent, ProgramViolation: v, Runs: 1})
		}
	}
	slices.SortStableFunc(out, func(a, b programRow) int {
		return cmp.Or(cmp.Compare(programRank(a.ProgramViolation), programRank(b.ProgramViolation)), cmp.Compare(a.Agent, b.Agent),
			cmp.Compare(a.Path, b.Path), cmp.Compare(a.Mismatch, b.Mismatch))
	})
	return out
}

// staleProgramRows lists the program entries every run of an agent on a
// host arch left unused, as staleRows does for syscalls.
func (r *Report) staleProgramRows() []hostItem[baseline.ProgramFinding] {
	return unusedByAll(r, func(run Run) []baseline.ProgramFinding {
		out := make([]baseline.ProgramFinding, len(run.UnusedPrograms))
		for i, f := range run.UnusedPrograms {
			f.File, f.Count = r.baselinePath(run, f.File), 0
			out[i] = f
		}
		return out
	})
}

// unverifiedRow is the execs of an agent's runs that sysgate could not
// confirm.
type unverifiedRow struct {
	Agent string
	Execs uint64
}

// unverifiedRows sums each agent's unverified execs over its runs.
func (r *Report) unverifiedRows() []unverifiedRow {
	var out []unverifiedRow
	index := map[string]int{}
	for _, run := range r.gateRuns() {
		if run.UnverifiedExecs == 0 {
			continue
		}
		i, ok := index[run.Agent]
		if !ok {
			i = len(out)
			index[run.Agent] = i
			out = append(out, unverifiedRow{Agent: run.Agent})
		}
		out[i].Execs += run.UnverifiedExecs
	}
	return out
}

// unverifiedOutsideRow is an agent's unverified execs of one program
// outside its baselines, over its runs.
type unverifiedOutsideRow struct {
	Agent string
	verdict.UnverifiedExec
}

// unverifiedOutsideRows sums the unverified execs of programs outside the
// baselines per agent and program, in the order the runs name them.
func (r *Report) unverifiedOutsideRows() []unverifiedOutsideRow {
	var out []unverifiedOutsideRow
	index := map[[2]string]int{}
	for _, run := range r.gateRuns() {
		for _, u := range run.UnverifiedOutside {
			key := [2]string{run.Agent, u.Path}
			if i, ok := index[key]; ok {
				out[i].Count += u.Count
				continue
			}
			index[key] = len(out)
			out = append(out, unverifiedOutsideRow{Agent: run.Agent, UnverifiedExec: u})
		}
	}
	return out
}

// programAnnotations are an error annotation per program outside the
// baselines, at the line where its entry would go.
func programAnnotations(rows []programRow) []Annotation {
	out := make([]Annotation, len(rows))
	for i, n := range rows {
		kind := "new program"
		switch {
		case n.Mismatch != "":
			kind = "exec mismatch:"
		case n.Risk.Risky():
			kind = "risky program"
		}
		title := fmt.Sprintf("sysgate: %s %s by %s", kind, term(n.Path), n.Agent)
		if n.Risk.Risky() {
			title = fmt.Sprintf("sysgate: %s %s (%s) by %s", kind, term(n.Path), n.RiskLabel(), n.Agent)
		}
		var b strings.Builder
		if n.Mismatch != "" {
			fmt.Fprintf(&b, "Mismatch: %s.\n", term(n.Mismatch))
		}
		fmt.Fprintf(&b, "%s ran %s%s %s, first as `%s` (%s).", n.Agent, term(n.Path), programNotes(n.ProgramViolation), Times(n.Count),
			argvLine(n.Argv), ranBy(n.ProgramRun))
		if n.Risk.Risky() {
			fmt.Fprintf(&b, "\nRisk: %s.", n.RiskLabel())
		}
		switch {
		case n.Mismatch != "":
			b.WriteString("\n" + mismatchFix(n.Mismatch))
		case n.File != "":
			fmt.Fprintf(&b, "\nIf the agent should run it (otherwise fix the agent), add to programs: here:%s", hintBlock(programLines(n.ProgramViolation)))
		}
		out[i] = Annotation{Level: "error", File: n.File, Line: n.Line, Title: title, Message: b.String(), danger: programDanger(n.ProgramViolation)}
	}
	return out
}

// writeProgramSummary is the step summary's table of programs outside
// the baselines.
func (r *Report) writeProgramSummary(b *strings.Builder) {
	rows := r.programRows()
	if len(rows) == 0 {
		return
	}
	b.WriteString("### Programs outside the baseline\n\nNot in the baseline's programs: add each one where the last column says, or fix the agent. " +
		"A mismatch is no baseline matter: the exec named one program and the kernel ran another.\n\n")
	b.WriteString("| Agent | Program | Risk | Execs | First exec | Run by | Belongs at |\n|---|---|---|--:|---|---|---|\n")
	for _, n := range rows {
		program := code(n.Path) + cell(programNotes(n.ProgramViolation))
		if n.Mismatch != "" {
			program += "; **mismatch**: " + cell(n.Mismatch)
		}
		risk := "-"
		if n.Risk.Risky() {
			risk = "**" + cell(n.RiskLabel()) + "**"
		}
		at := Location(n.File, n.Line)
		if n.Mismatch != "" {
			at = "-"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s |\n", cell(n.Agent), program, risk, n.Count, code(argvLine(n.Argv)),
			cell(ranBy(n.ProgramRun)), at)
	}
	b.WriteString("\n")
}
