package ci

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
)

// row is one line of the summary table: every run of one agent on one arch.
type row struct {
	Agent, Arch string
	Verdict     Verdict
	Runs        int
	New, Risky  int
	Programs    int // programs outside the baselines, each once
	Stale       int
	Loss        auditlog.Loss
	Duration    time.Duration
	ArchHint    string // from any of its runs: the baselines had no list for Arch, or no layer for its environment
	Drift       string // from its last run with violations: harness.Result.DriftNote
}

// newRow is one new syscall of an agent on an arch, counted over its runs,
// with its baseline path as the report shows it.
type newRow struct {
	Agent, Host string // Host: the run's arch; an i386 syscall on an x86_64 runner counts there
	harness.Violation
	Runs int
	// Record is the command that records the syscall into its file: the
	// suites' make target, or sysgate record for a CLI run.
	Record string
}

func (r *Report) rows() []row {
	var rows []row
	index := map[[2]string]int{}
	for _, run := range r.gateRuns() {
		key := [2]string{run.Agent, run.arch()}
		i, ok := index[key]
		if !ok {
			i = len(rows)
			index[key] = i
			rows = append(rows, row{Agent: run.Agent, Arch: run.arch()})
		}
		rw := &rows[i]
		rw.Runs++
		if o := run.Outcome(); o.rank() > rw.Verdict.rank() {
			rw.Verdict = o
		}
		rw.Loss = rw.Loss.Add(run.Loss)
		if h := run.ArchHint(); h != "" {
			rw.ArchHint = h
		}
		if d := run.DriftNote(); d != "" {
			rw.Drift = d
		}
		rw.Duration += run.Duration
	}
	for _, n := range r.newRows() {
		rw := &rows[index[[2]string{n.Agent, n.Host}]]
		rw.New++
		if n.Risk.Risky() {
			rw.Risky++
		}
	}
	for _, s := range r.staleRows() {
		rows[index[[2]string{s.Agent, s.Host}]].Stale++
	}
	for _, s := range r.staleProgramRows() {
		rows[index[[2]string{s.Agent, s.Host}]].Stale++
	}
	programs := map[[2]string]map[[2]string]bool{}
	for _, run := range r.gateRuns() {
		key := [2]string{run.Agent, run.arch()}
		for _, v := range run.ProgramViolations {
			if programs[key] == nil {
				programs[key] = map[[2]string]bool{}
			}
			programs[key][[2]string{v.Path, v.Mismatch}] = true
		}
	}
	for key, set := range programs {
		rows[index[key]].Programs = len(set)
	}
	return rows
}

// newRows merges the new syscalls of all runs of an agent: counts add up,
// the first process stays. Risky ones come first, high ones before them.
func (r *Report) newRows() []newRow {
	var out []newRow
	index := map[[4]string]int{}
	for _, run := range r.gateRuns() {
		if run.ArchHint() != "" {
			continue // an unrecorded environment: the hint stands for them all
		}
		for _, v := range run.Violations {
			key := [4]string{run.Agent, run.arch(), v.Arch.String(), v.Syscall}
			if i, ok := index[key]; ok {
				out[i].Count += v.Count
				out[i].Runs++
				continue
			}
			index[key] = len(out)
			v.File = r.baselinePath(run, v.File)
			v = asStarted(v, run.Command)
			out = append(out, newRow{Agent: run.Agent, Host: run.arch(), Violation: v, Runs: 1,
				Record: recordCommand(run.Result, v.File, run.Spec != "")})
		}
	}
	slices.SortStableFunc(out, func(a, b newRow) int {
		return cmp.Or(cmp.Compare(riskRank(a.Violation), riskRank(b.Violation)), cmp.Compare(a.Agent, b.Agent),
			cmp.Compare(a.Arch.String(), b.Arch.String()), cmp.Compare(a.Syscall, b.Syscall))
	})
	return out
}

func riskRank(v harness.Violation) int {
	switch {
	case !v.Risk.Risky():
		return 2
	case v.Level == baseline.LevelHigh:
		return 0
	}
	return 1
}

// staleRow is a baseline entry no run of an agent on a host arch used,
// with its path as the report shows it.
type staleRow struct {
	Agent, Host string
	baseline.Finding
}

// staleRows lists the entries every run of an agent on a host arch left
// unused (see unusedByAll).
func (r *Report) staleRows() []staleRow {
	items := unusedByAll(r, func(run Run) []baseline.Finding {
		out := make([]baseline.Finding, len(run.Unused))
		for i, s := range run.Unused {
			s.File, s.Count = r.baselinePath(run, s.File), 0
			out[i] = s
		}
		return out
	})
	out := make([]staleRow, len(items))
	for i, s := range items {
		out[i] = staleRow{Agent: s.Agent, Host: s.Host, Finding: s.Item}
	}
	return out
}

// hostItem is a finding of an agent's runs on a host arch.
type hostItem[T any] struct {
	Agent, Host string
	Item        T
}

// unusedByAll lists, in the order first seen, the items that every run
// of an agent on a host arch reports unused (unused returns a run's, with
// their paths as the report shows them): the harness reports unused
// entries per run, and an entry one spec needs is not stale because
// another spec did not use it.
func unusedByAll[T comparable](r *Report, unused func(Run) []T) []hostItem[T] {
	type key struct{ agent, host string }
	runs := map[key]int{}
	seen := map[key]map[T]int{}
	var order []hostItem[T]
	for _, run := range r.gateRuns() {
		k := key{run.Agent, run.arch()}
		runs[k]++
		if seen[k] == nil {
			seen[k] = map[T]int{}
		}
		for _, item := range unused(run) {
			if seen[k][item]++; seen[k][item] == 1 {
				order = append(order, hostItem[T]{Agent: run.Agent, Host: run.arch(), Item: item})
			}
		}
	}
	var out []hostItem[T]
	for _, s := range order {
		if seen[key{s.Agent, s.Host}][s.Item] == runs[key{s.Agent, s.Host}] {
			out = append(out, s)
		}
	}
	return out
}

func verdictLabel(v Verdict) string {
	switch v {
	case VerdictClean:
		return "✅ clean"
	case VerdictViolation:
		return "❌ violation"
	case VerdictInconclusive:
		return "⚠️ inconclusive"
	case VerdictAgentFailed:
		return "💥 agent failed"
	case VerdictRecorded:
		return "📝 recorded, new syscalls"
	}
	return "❔ " + orDash(string(v))
}

// WriteSummary renders the markdown step summary: the same text
// `make security-test` prints in a terminal.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## sysgate: %s\n\n", verdictLabel(r.Verdict()))
	if backends := r.backends(); len(backends) > 0 {
		fmt.Fprintf(&b, "Backend: %s\n\n", cell(strings.Join(backends, "; ")))
	}
	for _, w := range r.weakenedRuns() {
		fmt.Fprintf(&b, "> **Weakened gate** (%s): %s\n\n", cell(w.Agent), cell(w.Banner))
	}
	r.writeUnseenSummary(&b)
	if names := r.droppedEnv(); len(names) > 0 {
		fmt.Fprintf(&b, "Not passed to the agents: %s (runner credentials and workflow-command files; `--pass-env NAME` passes one).\n\n",
			cell(strings.Join(names, ", ")))
	}
	if len(r.Runs) > 0 {
		b.WriteString("| Agent | Arch | Verdict | Runs | New | Risky | Programs | Stale | Lost events | Duration |\n")
		b.WriteString("|---|---|---|--:|--:|--:|--:|--:|---|--:|\n")
		for _, rw := range r.rows() {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d | %s | %s |\n", cell(rw.Agent), cell(orDash(rw.Arch)),
				verdictLabel(rw.Verdict), rw.Runs, rw.New, rw.Risky, rw.Programs, rw.Stale, lossCounters(rw.Loss), duration(rw.Duration))
		}
		b.WriteString("\n")
	}
	for _, u := range r.unverifiedRows() {
		fmt.Fprintf(&b, "> **%s**: %s.\n\n", cell(u.Agent), cell(unverifiedNote(u.Execs)))
	}
	if missing := r.missingArchRows(); len(missing) > 0 {
		b.WriteString("### Unrecorded environment\n\n")
		for _, rw := range missing {
			fmt.Fprintf(&b, "- **%s** on %s: %s\n", cell(rw.Agent), cell(orDash(rw.Arch)), cell(rw.ArchHint))
		}
		b.WriteString("\n")
	}
	if drift := r.driftRows(); len(drift) > 0 {
		b.WriteString("### Environment\n\n")
		for _, rw := range drift {
			fmt.Fprintf(&b, "- **%s** on %s: %s\n", cell(rw.Agent), cell(orDash(rw.Arch)), cell(rw.Drift))
		}
		b.WriteString("\n")
	}
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
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s |\n", cell(n.Agent), cell(n.Arch.String()), syscall, risk, n.Count,
				cell(process(n.PID, n.Exe, n.Comm)+othersNote(n.Violation)), location(n.File, n.Line))
		}
		b.WriteString("\n")
	}
	r.writeProgramSummary(&b)
	if inconclusive := r.inconclusiveRuns(); len(inconclusive) > 0 {
		b.WriteString("### Inconclusive runs\n\nNo verdict: lost audit events or an environment problem. Such a run is never reported clean; re-run, and see `sysgate doctor` if it repeats.\n\n")
		b.WriteString("| Agent | Arch | Spec | Reason | Lost events |\n|---|---|---|---|---|\n")
		for _, run := range inconclusive {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(run.Agent), cell(orDash(run.arch())), cell(orDash(run.Spec)),
				cell(orDash(run.Inconclusive)), lossCounters(run.Loss))
		}
		b.WriteString("\n")
	}
	if stale := r.staleRows(); len(stale) > 0 {
		b.WriteString("### Stale baseline entries\n\nAllowed but made by no run: a full record proposes removing them; an expected error path belongs in a group with a reason.\n\n")
		b.WriteString("| Agent | Arch | Syscall | Risk | Entry |\n|---|---|---|---|---|\n")
		for _, s := range stale {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(s.Agent), cell(s.Arch.String()), code(s.Syscall), cell(orDash(s.RiskLabel())), location(s.File, s.Line))
		}
		b.WriteString("\n")
	}
	if stale := r.staleProgramRows(); len(stale) > 0 {
		b.WriteString("### Stale program entries\n\nAllowed, but no run ran them: remove a line no run needs any more; an entry nothing uses still lets the agent run the program.\n\n")
		b.WriteString("| Agent | Program | Risk | Entry |\n|---|---|---|---|\n")
		for _, s := range stale {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(s.Agent), code(s.Item.Program), cell(orDash(s.Item.Risk.Label(s.Item.Level))),
				location(s.Item.File, s.Item.Line))
		}
		b.WriteString("\n")
	}
	if leaks := r.leaks(); len(leaks) > 0 {
		b.WriteString("### Leaked processes\n\nStill running after the agent exited; killed at the end of the run.\n\n")
		b.WriteString("| Agent | Arch | Process | Lived |\n|---|---|---|--:|\n")
		for _, l := range leaks {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(l.agent), cell(orDash(l.arch)), cell(process(l.PID, l.Exe, l.Comm)), duration(l.Lived))
		}
		b.WriteString("\n")
	}
	if expected := r.expectedRuns(); len(expected) > 0 {
		b.WriteString("### Caught on purpose\n\nSpecs that make a syscall or run a program outside the baseline on purpose and pass because the gate caught it.\n\n")
		b.WriteString("| Agent | Arch | Spec | Caught |\n|---|---|---|---|\n")
		for _, run := range expected {
			var names []string
			for _, v := range run.Violations {
				names = append(names, code(v.Syscall))
			}
			for _, v := range run.ProgramViolations {
				names = append(names, "program "+code(v.Path))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(run.Agent), cell(orDash(run.arch())), cell(orDash(run.Spec)), orDash(strings.Join(names, ", ")))
		}
		b.WriteString("\n")
	}
	if len(r.Failures) > 0 {
		b.WriteString("### Specs that failed without a result\n\n| Spec | State | Where | Message |\n|---|---|---|---|\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(f.Spec), cell(f.State), cell(f.Location), cell(firstLine(f.Message)))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) inconclusiveRuns() []Run {
	var out []Run
	for _, run := range r.gateRuns() {
		if !run.Conclusive() {
			out = append(out, run)
		}
	}
	return out
}

func (r *Report) expectedRuns() []Run {
	var out []Run
	for _, run := range r.Runs {
		if run.Expected {
			out = append(out, run)
		}
	}
	return out
}

type agentLeak struct {
	agent, arch string
	harness.Leak
}

func (r *Report) leaks() []agentLeak {
	var out []agentLeak
	for _, run := range r.gateRuns() {
		for _, l := range run.Leaked {
			out = append(out, agentLeak{run.Agent, run.arch(), l})
		}
	}
	return out
}

// location is "`file:line`" for a markdown cell, "-" without a file.
func location(file string, line int) string {
	switch {
	case file == "":
		return "-"
	case line > 0:
		return code(fmt.Sprintf("%s:%d", file, line))
	}
	return code(file)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func duration(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// lossCounters is the short form of the three loss counters for a table
// cell; the annotations carry auditlog's full explanation.
func lossCounters(l auditlog.Loss) string {
	if !l.Any() {
		return "-"
	}
	return fmt.Sprintf("ENOBUFS %d, serial gaps %d, kernel lost %d", l.ENOBUFS, l.SerialGaps, l.KernelLost)
}

// othersNote is " and 2 other programs" when more than one program made a
// new syscall (the annotation names them).
func othersNote(n harness.Violation) string {
	if k := len(n.Also) + n.More; k > 0 {
		return " and " + programs(k, "other")
	}
	return ""
}

// driftRows are the rows whose runs found new syscalls, with what the
// environment says about them (not for an unrecorded environment: its
// hint says more).
func (r *Report) driftRows() []row {
	var out []row
	for _, rw := range r.rows() {
		if rw.Drift != "" && rw.ArchHint == "" {
			out = append(out, rw)
		}
	}
	return out
}

// missingArchRows are the agent/arch rows whose baselines had no list for
// that arch.
func (r *Report) missingArchRows() []row {
	var out []row
	for _, rw := range r.rows() {
		if rw.ArchHint != "" {
			out = append(out, rw)
		}
	}
	return out
}
