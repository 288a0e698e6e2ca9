package ci

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/verdict"
)

// fileViolationLine is one file violation for a terminal or a log: "read
// /home/u/.ssh/id_rsa (sensitive: ssh key, high) by /usr/bin/python3.11
// pid 41 (openat, x1); the baseline has {workspace}/**: read".
func fileViolationLine(v verdict.FileViolation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", v.Op, term(v.Path))
	if v.Denied {
		b.WriteString(" (refused)")
	}
	if v.Sensitive != "" {
		fmt.Fprintf(&b, " (sensitive: %s, %s)", v.Sensitive, v.Level)
	}
	fmt.Fprintf(&b, " by %s pid %d (%s, %s)", term(v.Exe), v.PID, v.Syscall, Times(v.Count))
	if v.Has != "" {
		fmt.Fprintf(&b, "; the baseline has %s", term(v.Has))
	} else {
		b.WriteString("; the baseline's files section has nothing near it")
	}
	return b.String()
}

// fileFix is what to do about a file violation: list the file (with a
// reason when it is sensitive) if the agent should touch it.
func fileFix(v verdict.FileViolation) string {
	fix := fmt.Sprintf("If the agent should %s it (otherwise fix the agent), add to `files:` `%s:` in the baseline", v.Op, v.Op)
	if v.Sensitive != "" {
		fix += " (a sensitive path needs a reason)"
	}
	entry := v.Fix
	if entry == "" {
		entry = v.Path // a result of an older version
	}
	return fix + ":" + hintBlock(pathLines(entry, v.Sensitive != ""))
}

// writeFileViolations is the text report's list of files touched
// outside the baselines, sensitive ones first.
func writeFileViolations(b *strings.Builder, vs []verdict.FileViolation, p Palette) {
	fmt.Fprintf(b, "\n%s outside the baseline:\n", Count(len(vs), "file access", "file accesses"))
	for _, v := range byDanger(vs, fileDanger) {
		fmt.Fprintf(b, "  %s\n", p.risk(fileViolationLine(v), v.Sensitive != ""))
	}
}

// fileAnnotations are an error per file violation of the report's gate
// runs, at the baseline that would list it.
func (r *Report) fileAnnotations() []Annotation {
	var out []Annotation
	for _, run := range r.gateRuns() {
		for _, v := range byDanger(run.FileViolations, fileDanger) {
			title := fmt.Sprintf("sysgate: %s %s by %s", v.Op, term(v.Path), run.Agent)
			if v.Sensitive != "" {
				title = fmt.Sprintf("sysgate: %s of a sensitive file %s (%s, %s) by %s", v.Op, term(v.Path), v.Sensitive, v.Level, run.Agent)
			}
			msg := fmt.Sprintf("%s: %s.\n%s", run.Agent, fileViolationLine(v), fileFix(v))
			out = append(out, Annotation{Level: "error", File: r.baselinePath(run, v.File), Line: v.Line, Title: title, Message: msg, danger: fileDanger(v)})
		}
	}
	return out
}

// writeFileSummary is the step summary's table of files touched outside
// the baselines, by the gate's runs.
func (r *Report) writeFileSummary(b *strings.Builder) {
	var rows []rankedRow
	for _, run := range r.gateRuns() {
		for _, v := range byDanger(run.FileViolations, fileDanger) {
			sensitive := "-"
			if v.Sensitive != "" {
				sensitive = "**" + cell(v.Sensitive+", "+v.Level) + "**"
			}
			has := "-"
			if v.Has != "" {
				has = code(v.Has)
			}
			rows = append(rows, rankedRow{fileDanger(v), fmt.Sprintf("| %s | %s | %s | %s | %d | %s | %s |\n", cell(run.Agent), cell(v.Op.String()), code(v.Path),
				sensitive, v.Count, cell(term(v.Exe)), has)})
		}
	}
	if len(rows) == 0 {
		return
	}
	rows = byDanger(rows, rankedRow.rank)
	b.WriteString("### Files outside the baseline\n\nNot in the baseline's files section: list each one (a sensitive path with a reason), or fix the agent.\n\n")
	b.WriteString("| Agent | Access | Path | Sensitive | Count | By | The baseline has |\n|---|---|---|---|--:|---|---|\n")
	for _, row := range rows {
		b.WriteString(row.text)
	}
	b.WriteString("\n")
}
