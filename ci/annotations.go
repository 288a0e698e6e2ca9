package ci

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// Annotation is one GitHub Actions workflow command (::error, ::warning,
// ::notice) that GitHub shows on a file's line in the pull request.
type Annotation struct {
	Level   string // "error", "warning" or "notice"
	File    string
	Line    int
	Title   string
	Message string
	// danger orders the gate's errors, most dangerous first (fileDanger).
	danger int
}

// String formats the workflow command with its data and properties
// escaped as the runner expects, so a syscall or exe name can never end
// the command early or inject another one.
//
// What an agent named is escaped where a message is built; the title and
// each line of the message are escaped for a log here as well, since the
// runner's log viewer acts on terminal escapes too.
func (a Annotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+escapeProperty(term(a.File)))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(term(a.Title)))
	}
	s := "::" + a.Level
	if len(props) > 0 {
		s += " " + strings.Join(props, ",")
	}
	lines := strings.Split(a.Message, "\n")
	for i, l := range lines {
		l, crlf := strings.CutSuffix(l, "\r")
		lines[i] = term(l)
		if crlf {
			lines[i] += "\r"
		}
	}
	return s + "::" + escapeData(strings.Join(lines, "\n"))
}

// escapeData escapes a workflow command's message (the runner's
// escapeData: %, CR, LF).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value: the message escapes plus the
// separators of the property list, ":" and ",".
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Annotations returns the report's annotations: an error on the baseline
// line where each new syscall and each program outside the baselines
// belongs, an error per inconclusive run or failed spec (either fails the
// gate), a notice on each stale baseline entry, syscall or program.
func (r *Report) Annotations() []Annotation {
	// Programs first: there are few, and GitHub drops the errors past
	// MaxAnnotations, so the syscalls get what room is left.
	// A record run's new syscalls and programs are what it learned, not
	// errors: one notice per run says so, and the errors are the gate's.
	gate, learned := r.splitRecorded()
	out := capped(programAnnotations(gate.programRows()), "error", "programs outside the baselines")
	out = append(out, capped(gate.fileAnnotations(), "error", "file accesses outside the baselines")...)
	out = append(out, capped(gate.networkAnnotations(), "error", "destinations outside the baselines")...)
	out = append(out, newSyscallAnnotations(gate.newRows(), max(1, MaxAnnotations-len(out)))...)
	slices.SortStableFunc(out, func(a, b Annotation) int { return dangerOrder(a.danger, b.danger) })
	out = append(out, capped(learned, "notice", "recorded runs")...)
	for _, w := range r.weakenings() {
		if !w.OnPurpose {
			out = append(out, Annotation{Level: "warning", Title: "sysgate: weakened gate for " + agentList(w.Agents), Message: w.Part})
		}
	}
	var failures, notices []Annotation
	for _, run := range r.gateRuns() {
		if run.Conclusive() {
			continue
		}
		msg := "no verdict: " + OrDash(run.Inconclusive)
		if loss := run.Loss.String(); run.Loss.Any() && !strings.Contains(run.Inconclusive, loss) {
			msg += "\n" + loss
		}
		msg += "\nA run that lost audit events is never reported clean. Re-run the job; if it repeats, see `sysgate doctor`."
		failures = append(failures, Annotation{Level: "error", Title: fmt.Sprintf("sysgate: %s inconclusive (%s)", run.Agent, OrDash(run.arch())), Message: msg})
	}
	for _, run := range r.gateRuns() {
		if run.Outcome() == VerdictAgentFailed {
			failures = append(failures, Annotation{Level: "error", Title: fmt.Sprintf("sysgate: %s failed (%s)", run.Agent, OrDash(run.arch())),
				Message: fmt.Sprintf("The agent %s; its syscalls stayed within the baseline. A failing agent fails the gate unless --allow-agent-failure is given.", ExitText(run.Result))})
		}
	}
	for _, run := range r.gateRuns() {
		// A run with no new syscall can fail on a baseline alone: say which.
		for _, f := range run.ModifiedBaselines {
			failures = append(failures, Annotation{Level: "error", Title: "sysgate: baseline modified by " + run.Agent, Message: ModifiedMessage(f)})
		}
		for _, f := range run.ChangedBaselines {
			failures = append(failures, Annotation{Level: "error", Title: "sysgate: baseline changed during the gate (" + run.Agent + ")", Message: GuardChangedMessage(f)})
		}
	}
	// Unverified execs of programs the baseline allows are counted in the
	// summary: short-lived children of every run, not a warning each.
	for _, u := range r.unverifiedOutsideRows() {
		out = append(out, Annotation{Level: "warning",
			Title:   fmt.Sprintf("sysgate: %s of %s in %s", Count(u.Count, "unverified exec", "unverified execs"), term(u.Path), u.Agent),
			Message: fmt.Sprintf("%s: %s.", u.Agent, unverifiedOutsideNote(u.UnverifiedExec))})
	}
	for _, rw := range r.missingArchRows() {
		out = append(out, Annotation{Level: "error", Title: fmt.Sprintf("sysgate: unrecorded environment for %s (%s)", rw.Agent, OrDash(rw.Arch)), Message: rw.ArchHint})
	}
	for _, rw := range r.driftRows() {
		title := fmt.Sprintf("sysgate: environment drift for %s (%s)", rw.Agent, OrDash(rw.Arch))
		if strings.HasPrefix(rw.Drift, "same environment") {
			title = fmt.Sprintf("sysgate: %s changed behaviour (same environment)", rw.Agent)
		}
		out = append(out, Annotation{Level: "warning", Title: title, Message: rw.Drift})
	}
	for _, f := range r.Failures {
		failures = append(failures, Annotation{Level: "error", Title: "sysgate: spec failed without a result: " + f.Spec,
			Message: fmt.Sprintf("%s at %s: %s", f.State, f.Location, f.Message)})
	}
	for _, s := range r.staleRows() {
		notices = append(notices, Annotation{Level: "notice", File: s.File, Line: s.Line,
			Title:   fmt.Sprintf("sysgate: %s (%s) unused by %s", s.Syscall, s.Arch, s.Agent),
			Message: fmt.Sprintf("No run of %s made %s on %s. If that is expected (an error path), move it to a group with a reason; otherwise a full record proposes removing it.", s.Agent, s.Syscall, s.Arch)})
	}
	for _, s := range r.staleProgramRows() {
		notices = append(notices, Annotation{Level: "notice", File: s.Item.File, Line: s.Item.Line,
			Title:   fmt.Sprintf("sysgate: program %s unused by %s", s.Item.Program, s.Agent),
			Message: fmt.Sprintf("No run of %s ran %s. If no run needs it any more, remove the line: an entry nothing uses still lets the agent run it.", s.Agent, s.Item.Program)})
	}
	out = append(out, r.unseenAnnotations()...)
	out = append(out, capped(failures, "error", "inconclusive runs or failed specs")...)
	return append(out, capped(notices, "notice", "unused baseline entries")...)
}

// MaxAnnotations is how many annotations of one level GitHub shows per
// step; more are dropped silently, so the last one says how many more
// there are.
const MaxAnnotations = 10

// newSyscallAnnotations puts each risky syscall on its own annotation and
// groups the others that belong at the same baseline line, then caps the
// list at limit.
func newSyscallAnnotations(rows []newRow, limit int) []Annotation {
	var groups [][]newRow
	index := map[string]int{}
	for _, n := range rows {
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%d", n.Agent, n.Arch, n.File, n.Line)
		if i, ok := index[key]; ok && !n.Risk.Risky() {
			groups[i] = append(groups[i], n)
			continue
		}
		if !n.Risk.Risky() {
			index[key] = len(groups)
		}
		groups = append(groups, []newRow{n})
	}
	var out []Annotation
	for i, g := range groups {
		if i == limit-1 && len(groups) > limit {
			rest := 0
			for _, g := range groups[i:] {
				rest += len(g)
			}
			out = append(out, overflow("error", fmt.Sprintf("%d more new syscalls", rest)))
			break
		}
		a := newSyscallAnnotation(g)
		a.danger = worst(g, func(n newRow) int { return riskRank(n.Violation) })
		out = append(out, a)
	}
	return out
}

// capped keeps the first MaxAnnotations of list, the last one saying how
// many more there are.
func capped(list []Annotation, level, what string) []Annotation {
	if len(list) <= MaxAnnotations {
		return list
	}
	rest := len(list) - (MaxAnnotations - 1)
	return append(list[:MaxAnnotations-1:MaxAnnotations-1], overflow(level, fmt.Sprintf("%d more %s", rest, what)))
}

func overflow(level, what string) Annotation {
	return Annotation{Level: level, Title: "sysgate: " + what,
		Message: fmt.Sprintf("GitHub shows only %d %s annotations per step: the step summary lists them all.", MaxAnnotations, level)}
}

// newSyscallAnnotation is the annotation of one risky syscall, or of the
// syscalls of one agent that belong at the same baseline line.
func newSyscallAnnotation(g []newRow) Annotation {
	n := g[0]
	kind := "new syscall"
	if n.Risk.Risky() {
		kind = "risky syscall"
	}
	names := make([]string, len(g))
	for i, m := range g {
		names[i] = m.Syscall
	}
	title := fmt.Sprintf("sysgate: %s %s (%s) by %s", kind, n.Syscall, n.Arch, n.Agent)
	if len(g) > 1 {
		title = fmt.Sprintf("sysgate: %d new syscalls (%s) by %s: %s", len(g), n.Arch, n.Agent, strings.Join(names, ", "))
	}
	var b strings.Builder
	for i, m := range g {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s made %s on %s %s, first by %s%s.", m.Agent, m.Syscall, m.Arch, Times(m.Count), process(m.PID, m.Exe, m.Comm), alsoBy(m.Also, m.More))
		if note := m.ClassNote(); note != "" {
			fmt.Fprintf(&b, "\n%s: %s.", m.Syscall, note)
		}
	}
	if n.Risk.Risky() {
		fmt.Fprintf(&b, "\nRisk: %s (%s). A baseline entry for it needs a reason a reviewer accepts.", n.RiskLabel(), risk.Reason(n.Syscall))
	}
	if n.File != "" {
		var lines []string
		for _, m := range g {
			lines = append(lines, syscallLines(m.Syscall, m.Risk.Risky())...)
		}
		fmt.Fprintf(&b, "\nIf the agent should make it (otherwise fix the agent), add to the %s list here", n.Arch)
		if n.Record != "" {
			fmt.Fprintf(&b, " (or run %s)", n.Record)
		}
		b.WriteString(":" + hintBlock(lines))
	}
	return Annotation{Level: "error", File: n.File, Line: n.Line, Title: title, Message: b.String()}
}

// WriteAnnotations prints the report's annotations, one workflow command
// per line.
func (r *Report) WriteAnnotations(w io.Writer) error {
	for _, a := range r.Annotations() {
		if _, err := fmt.Fprintln(w, a.String()); err != nil {
			return err
		}
	}
	return nil
}

// Times is "once" or "N times".
func Times(n uint64) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// process names the process that made a syscall: its exe, its comm when
// that says something the exe does not, and its pid.
func process(pid int, exe, comm string) string {
	exe, comm = term(exe), term(comm)
	name := exe
	if name == "" {
		name = comm
	} else if comm != "" && !strings.HasSuffix(exe, "/"+comm) {
		name += " (" + comm + ")"
	}
	if name == "" {
		name = "an unknown process"
	}
	if pid > 0 {
		name += fmt.Sprintf(" pid %d", pid)
	}
	return name
}

// alsoBy is "; also by X pid 1 (2 times), Y pid 3 (once) and 2 more
// programs", or "" when one program made the syscall.
func alsoBy(also []verdict.Caller, more int) string {
	if len(also) == 0 {
		return ""
	}
	parts := make([]string, len(also))
	for i, c := range also {
		parts[i] = fmt.Sprintf("%s (%s)", process(c.PID, c.Exe, c.Comm), Times(c.Count))
	}
	s := "; also by " + strings.Join(parts, ", ")
	if more > 0 {
		s += " and " + programs(more, "more")
	}
	return s
}

// programs is "1 other program" or "3 other programs".
func programs(n int, adj string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s program", adj)
	}
	return fmt.Sprintf("%d %s programs", n, adj)
}

// OrDash is s, or "-" for an empty cell.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// splitRecorded returns the report without its record runs that learned
// something (VerdictRecorded), and a notice for each of those.
func (r *Report) splitRecorded() (*Report, []Annotation) {
	gate := *r
	gate.Runs = nil
	var notices []Annotation
	for _, run := range r.Runs {
		if run.Expected || run.Outcome() != VerdictRecorded {
			gate.Runs = append(gate.Runs, run)
			continue
		}
		file := ""
		if len(run.Baselines) > 0 {
			file = r.baselinePath(run, run.Baselines[len(run.Baselines)-1])
		}
		notices = append(notices, Annotation{Level: "notice", File: file,
			Title: fmt.Sprintf("sysgate: %s recorded (%s)", run.Agent, OrDash(run.arch())),
			Message: fmt.Sprintf("Record mode learned %s and %s outside the baseline; review them in the baseline diff.",
				Count(len(run.Violations), "syscall", "syscalls"), Count(len(run.ProgramViolations), "program", "programs"))})
	}
	return &gate, notices
}
