package ci

import (
	"fmt"
	"strings"
)

// writeSummaryNotes says which backends ran, which runs had a weakened
// gate, what no run could see and which variables the agents did not get.
func (r *Report) writeSummaryNotes(b *strings.Builder) {
	if backends := r.backends(); len(backends) > 0 {
		fmt.Fprintf(b, "Backend: %s\n\n", cell(strings.Join(backends, "; ")))
	}
	for _, w := range r.weakenings() {
		if w.OnPurpose {
			fmt.Fprintf(b, "Weakened on purpose, by specs that catch a hole and then show it open (%s): %s.\n\n", cell(agentList(w.Agents)), cell(w.Part))
			continue
		}
		fmt.Fprintf(b, "> **Weakened gate** (%s): %s\n\n", cell(agentList(w.Agents)), cell(w.Part))
	}
	for _, run := range r.Runs {
		if note := RecordingNote(run.Result); note != "" {
			fmt.Fprintf(b, "Recorded %s: %s.\n\n", cell(run.Agent), cell(note))
		}
	}
	r.writeUnseenSummary(b)
	if names := r.droppedEnv(); len(names) > 0 {
		fmt.Fprintf(b, "Not passed to the agents: %s (runner credentials and workflow-command files; `--pass-env NAME` passes one).\n\n",
			cell(strings.Join(names, ", ")))
	}
}

// writeRunTable is one row per agent and arch, then the count of execs
// whose program could not be verified and a warning for those that named
// a program outside the baseline.
func (r *Report) writeRunTable(b *strings.Builder) {
	if len(r.Runs) > 0 {
		b.WriteString("| Agent | Arch | Verdict | Runs | New | Risky | Programs | Stale | Lost events | Duration |\n")
		b.WriteString("|---|---|---|--:|--:|--:|--:|--:|---|--:|\n")
		for _, rw := range r.rows() {
			fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %d | %d | %d | %s | %s |\n", cell(rw.Agent), cell(OrDash(rw.Arch)),
				verdictLabel(rw.Verdict), rw.Runs, rw.New, rw.Risky, rw.Programs, rw.Stale, lossCounters(rw.Loss), duration(rw.Duration))
		}
		b.WriteString("\n")
	}
	if rows := r.unverifiedRows(); len(rows) > 0 {
		counts := make([]string, len(rows))
		for i, u := range rows {
			counts[i] = fmt.Sprintf("%s %d", cell(u.Agent), u.Execs)
		}
		fmt.Fprintf(b, "Execs unverified (gone before /proc showed the program): %s.\n\n", strings.Join(counts, ", "))
	}
	for _, u := range r.unverifiedOutsideRows() {
		fmt.Fprintf(b, "> **%s**: %s.\n\n", cell(u.Agent), cell(unverifiedOutsideNote(u.UnverifiedExec)))
	}
}

// writeEnvironmentSections lists the arches no baseline has recorded and
// the environments that drifted from the recorded one.
func (r *Report) writeEnvironmentSections(b *strings.Builder) {
	if missing := r.missingArchRows(); len(missing) > 0 {
		b.WriteString("### Unrecorded environment\n\n")
		for _, rw := range missing {
			fmt.Fprintf(b, "- **%s** on %s: %s\n", cell(rw.Agent), cell(OrDash(rw.Arch)), cell(rw.ArchHint))
		}
		b.WriteString("\n")
	}
	if drift := r.driftRows(); len(drift) > 0 {
		b.WriteString("### Environment\n\n")
		for _, rw := range drift {
			fmt.Fprintf(b, "- **%s** on %s: %s\n", cell(rw.Agent), cell(OrDash(rw.Arch)), cell(rw.Drift))
		}
		b.WriteString("\n")
	}
}

// writeNewSyscalls lists the syscalls outside the baselines, each with
// where its entry belongs.
func (r *Report) writeNewSyscalls(b *strings.Builder) {
	if rows := r.newRows(); len(rows) > 0 {
		b.WriteString("### New syscalls\n\nNot in the baseline: add each one where the last column says (with a reason if it is risky) or fix the agent.\n\n")
		b.WriteString("| Agent | Arch | Syscall | Risk | Calls | First made by | Belongs at |\n|---|---|---|---|--:|---|---|\n")
		for _, n := range rows {
			risk := "-"
			if n.Risk.Risky() {
				risk = "**" + cell(n.RiskLabel()) + "**"
			}
			syscall := code(n.Syscall)
			if note := n.ClassNote(); note != "" {
				syscall += ": " + cell(note)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s | %s |\n", cell(n.Agent), cell(n.Arch.String()), syscall, risk, n.Count,
				cell(process(n.PID, n.Exe, n.Comm)+othersNote(n.Violation)), Location(n.File, n.Line))
		}
		b.WriteString("\n")
	}
}

// writeInconclusiveRuns lists the runs without a verdict and why.
func (r *Report) writeInconclusiveRuns(b *strings.Builder) {
	if inconclusive := r.inconclusiveRuns(); len(inconclusive) > 0 {
		b.WriteString("### Inconclusive runs\n\nNo verdict: lost audit events or an environment problem. Such a run is never reported clean; re-run, and see `sysgate doctor` if it repeats.\n\n")
		b.WriteString("| Agent | Arch | Spec | Reason | Lost events |\n|---|---|---|---|---|\n")
		for _, run := range inconclusive {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", cell(run.Agent), cell(OrDash(run.arch())), cell(OrDash(run.Spec)),
				cell(OrDash(run.Inconclusive)), lossCounters(run.Loss))
		}
		b.WriteString("\n")
	}
}

// writeStaleSections lists the syscall and program entries no run used.
func (r *Report) writeStaleSections(b *strings.Builder) {
	if stale := r.staleRows(); len(stale) > 0 {
		b.WriteString("### Stale baseline entries\n\nAllowed but made by no run: a full record proposes removing them; an expected error path belongs in a group with a reason.\n\n")
		b.WriteString("| Agent | Arch | Syscall | Risk | Entry |\n|---|---|---|---|---|\n")
		for _, s := range stale {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", cell(s.Agent), cell(s.Arch.String()), code(s.Syscall), cell(OrDash(s.RiskLabel())), Location(s.File, s.Line))
		}
		b.WriteString("\n")
	}
	if stale := r.staleProgramRows(); len(stale) > 0 {
		b.WriteString("### Stale program entries\n\nAllowed, but no run ran them: remove a line no run needs any more; an entry nothing uses still lets the agent run the program.\n\n")
		b.WriteString("| Agent | Program | Risk | Entry |\n|---|---|---|---|\n")
		for _, s := range stale {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(s.Agent), code(s.Item.Program), cell(OrDash(s.Item.Risk.Label(s.Item.Level))),
				Location(s.Item.File, s.Item.Line))
		}
		b.WriteString("\n")
	}
}

// writeLeaks lists the processes still running after their agent exited.
func (r *Report) writeLeaks(b *strings.Builder) {
	if leaks := r.leaks(); len(leaks) > 0 {
		b.WriteString("### Leaked processes\n\nStill running after the agent exited; killed at the end of the run.\n\n")
		b.WriteString("| Agent | Arch | Process | Lived |\n|---|---|---|--:|\n")
		for _, l := range leaks {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(l.agent), cell(OrDash(l.arch)), cell(process(l.PID, l.Exe, l.Comm)), duration(l.Lived))
		}
		b.WriteString("\n")
	}
}

// writeCaughtOnPurpose lists the specs that pass because the gate caught
// what they do on purpose.
func (r *Report) writeCaughtOnPurpose(b *strings.Builder) {
	if expected := r.expectedRuns(); len(expected) > 0 {
		b.WriteString("### Caught on purpose\n\nSpecs that make a syscall, run a program, touch a file or reach a destination outside the baseline on purpose and pass because the gate caught it.\n\n")
		b.WriteString("| Agent | Arch | Spec | Caught |\n|---|---|---|---|\n")
		for _, run := range expected {
			var names []string
			for _, v := range run.Violations {
				names = append(names, code(v.Syscall))
			}
			for _, v := range run.ProgramViolations {
				names = append(names, "program "+code(v.Path))
			}
			for _, v := range run.FileViolations {
				names = append(names, v.Op.String()+" "+code(v.Path))
			}
			for _, v := range run.NetworkViolations {
				names = append(names, v.Op.String()+" "+code(v.Dest))
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(run.Agent), cell(OrDash(run.arch())), cell(OrDash(run.Spec)), OrDash(strings.Join(names, ", ")))
		}
		b.WriteString("\n")
	}
}

// writeFailures lists the specs that failed without a result.
func (r *Report) writeFailures(b *strings.Builder) {
	if len(r.Failures) > 0 {
		b.WriteString("### Specs that failed without a result\n\n| Spec | State | Where | Message |\n|---|---|---|---|\n")
		for _, f := range r.Failures {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(f.Spec), cell(f.State), cell(f.Location), cell(firstLine(f.Message)))
		}
		b.WriteString("\n")
	}
}
