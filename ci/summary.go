package ci

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

// row is one line of the summary table: every run of one agent on one arch.
type row struct {
	Agent, Arch string
	Verdict     Verdict
	Runs        int
	New, Risky  int
	Programs    int // programs outside the baselines, each once
	Stale       int
	Loss        observe.Loss
	Duration    time.Duration
	ArchHint    string // from any of its runs: the baselines had no list for Arch, or no layer for its environment
	Drift       string // from its last run with violations: DriftNote
}

// newRow is one new syscall of an agent on an arch, counted over its runs,
// with its baseline path as the report shows it.
type newRow struct {
	Agent, Host string // Host: the run's arch; an i386 syscall on an x86_64 runner counts there
	verdict.Violation
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
		if o := run.Outcome(); rank(o) > rank(rw.Verdict) {
			rw.Verdict = o
		}
		rw.Loss = rw.Loss.Add(run.Loss)
		if h := ArchHint(run.Result); h != "" {
			rw.ArchHint = h
		}
		if d := DriftNote(run.Result); d != "" {
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
		if ArchHint(run.Result) != "" {
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

func riskRank(v verdict.Violation) int { return riskDanger(v.Risk.Risky(), v.Level) }

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
	return "❔ " + OrDash(string(v))
}

// WriteSummary renders the markdown step summary: the same text
// `make security-test` prints in a terminal.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## sysgate: %s\n\n", verdictLabel(r.Verdict()))
	r.writeSummaryNotes(&b)
	r.writeRunTable(&b)
	r.writeEnvironmentSections(&b)
	r.writeNewSyscalls(&b)
	r.writeProgramSummary(&b)
	r.writeFileSummary(&b)
	r.writeNetworkSummary(&b)
	r.writeInconclusiveRuns(&b)
	r.writeStaleSections(&b)
	r.writeLeaks(&b)
	r.writeCaughtOnPurpose(&b)
	r.writeFailures(&b)
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
	verdict.Leak
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

// Location is "`file:line`" for a markdown cell, "-" without a file.
func Location(file string, line int) string {
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
func lossCounters(l observe.Loss) string {
	if !l.Any() {
		return "-"
	}
	return fmt.Sprintf("ENOBUFS %d, serial gaps %d, kernel lost %d", l.ENOBUFS, l.SerialGaps, l.KernelLost)
}

// othersNote is " and 2 other programs" when more than one program made a
// new syscall (the annotation names them).
func othersNote(n verdict.Violation) string {
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
