package ci

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// WriteText renders one run for a terminal (sysgate check, enforce and
// record): the verdict, a table of the syscalls outside the baseline, the
// programs, files and destinations outside it, the names the run looked
// up, the leaked processes and how the agent ended, coloured by p.
func WriteText(w io.Writer, r *verdict.Result, p Palette) error {
	var b strings.Builder
	word := strings.ToUpper(string(r.Verdict))
	if r.Mode == baseline.ModeRecord && r.Conclusive() && r.Verdict != verdict.VerdictAgentFailed && len(r.ModifiedBaselines) == 0 &&
		len(r.ChangedBaselines) == 0 && mismatches(r.ProgramViolations) == 0 {
		word = "RECORDED" // beyond the extended bases is what record writes, not a failure
	}
	fmt.Fprintf(&b, "sysgate %s %s: %s", r.Mode, term(r.Agent), p.verdict(word))
	if r.Inconclusive != "" {
		fmt.Fprintf(&b, " (%s)", reasons(r.Inconclusive))
	}
	one, many := EventWord(r)
	fmt.Fprintf(&b, "\n  %s from %s in %v; agent (uid %d) %s",
		Count(r.Events, one, many), Count(len(r.Processes), "process", "processes"), r.Duration.Round(time.Millisecond), r.UID, ExitText(r))
	if r.UnverifiedExecs > 0 {
		fmt.Fprintf(&b, "; %s", unverifiedCount(r.UnverifiedExecs))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  backend: %s\n", BackendText(r))
	if note := RecordingNote(r); note != "" {
		fmt.Fprintf(&b, "  %s\n", note)
	}
	shim := ShimBrief(r.Shim)
	if r.Mode == baseline.ModeRecord {
		shim = ShimNote(r.Shim)
	}
	if shim != "" {
		fmt.Fprintf(&b, "  %s\n", shim)
	}
	if r.Unnamed > 0 {
		fmt.Fprintf(&b, "  %s from callers sysgate could not name (pid not visible here, or gone before it was read)\n", Count(r.Unnamed, "call", "calls"))
	}
	for _, u := range r.UnverifiedOutside {
		fmt.Fprintf(&b, "  %s %s\n", p.alarm("WARNING:"), unverifiedOutsideNote(u))
	}
	for _, f := range r.ModifiedBaselines {
		fmt.Fprintf(&b, "  %s\n", term(ModifiedMessage(f)))
	}
	for _, f := range r.ChangedBaselines {
		fmt.Fprintf(&b, "  %s\n", GuardChangedMessage(f))
	}
	if len(r.ProtectedBaselines) > 0 {
		fmt.Fprintf(&b, "  read-only for the agent: the gate's baselines %s\n", strings.Join(r.ProtectedBaselines, ", "))
	}
	if len(r.ReadOnly) > 0 {
		quoted := make([]string, len(r.ReadOnly))
		for i, p := range r.ReadOnly {
			quoted[i] = term(p)
		}
		fmt.Fprintf(&b, "  read-only for the agent: %s\n", strings.Join(quoted, ", "))
	}
	if banner := WeakenedBanner(r); banner != "" {
		fmt.Fprintf(&b, "  WEAKENED GATE: %s\n", banner)
	}
	writeBanner(&b, r)
	if note := DroppedEnvNote(r); note != "" {
		fmt.Fprintf(&b, "  %s\n", note)
	}
	if h := ArchHint(r); h != "" {
		fmt.Fprintf(&b, "  %s\n", h)
	}
	if r.Incremental {
		b.WriteString("  incremental: the baselines ran allowed in the kernel and only what they lack was logged; stale entries not checked (a full record finds them)\n")
	}
	writeObserved(&b, r)
	// A record run's syscalls beyond its bases are what it writes: the
	// record summary (WriteRecorded) lists them.
	if note := DriftNote(r); note != "" && ArchHint(r) == "" {
		fmt.Fprintf(&b, "  %s\n", note)
	}
	if line := DriftLine(r); line != "" {
		fmt.Fprintf(&b, "  %s\n", term(line))
	}
	// An unrecorded environment's new syscalls are its whole runtime: the
	// hint above stands for them (--format json lists them).
	if len(r.Violations) > 0 && r.Mode != baseline.ModeRecord && ArchHint(r) == "" {
		writeViolationTable(&b, r.Violations, r.Command, p)
	}
	if vs := shownPrograms(r); len(vs) > 0 {
		writeProgramViolations(&b, vs, p)
	}
	if len(r.FileViolations) > 0 {
		writeFileViolations(&b, r.FileViolations, p)
	}
	if len(r.NetworkViolations) > 0 {
		writeNetworkViolations(&b, r.NetworkViolations, p)
	}
	writeNames(&b, r.Names)
	writeRefused(&b, r)
	if r.UnknownABI > 0 {
		fmt.Fprintf(&b, "  %s of an ABI sysgate cannot name\n", Count(r.UnknownABI, "syscall", "syscalls"))
	}
	if len(r.Leaked) > 0 {
		fmt.Fprintf(&b, "\nKilled by sysgate:\n")
		for _, l := range r.Leaked {
			fmt.Fprintf(&b, "  %s (%s, pid %d) after %v: %s\n", term(l.Exe), term(l.Comm), l.PID, l.Lived.Round(time.Millisecond), term(l.Cause))
		}
	}
	if len(r.Violations) > 0 && r.Mode != baseline.ModeRecord && ArchHint(r) == "" {
		fmt.Fprintf(&b, "\n%s\n", updateHint(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeObserved counts what a record run learnt: syscalls per arch,
// programs, file accesses and destinations.
func writeObserved(b *strings.Builder, r *verdict.Result) {
	if r.Mode != baseline.ModeRecord || r.Observed == nil {
		return
	}
	for _, arch := range r.Observed.Arches() {
		fmt.Fprintf(b, "  observed %s: %s\n", arch, Count(len(r.Observed.Names(arch)), "distinct syscall", "distinct syscalls"))
	}
	if len(r.Programs) > 0 {
		fmt.Fprintf(b, "  observed %s\n", Count(len(r.Programs), "program", "programs"))
	}
	if n := len(r.Observed.FileList()); n > 0 {
		fmt.Fprintf(b, "  observed %s\n", Count(n, "file access", "file accesses"))
	}
	if n := len(r.Observed.NetworkList()); n > 0 {
		fmt.Fprintf(b, "  observed %s\n", Count(n, "destination", "destinations"))
	}
}

// shownPrograms are the program violations the text shows, mismatches
// and high risks first: in record mode, where new programs are what the
// run learns, only the mismatches, which no baseline makes right.
func shownPrograms(r *verdict.Result) []verdict.ProgramViolation {
	var out []verdict.ProgramViolation
	for _, v := range r.ProgramViolations {
		if r.Mode != baseline.ModeRecord || v.Mismatch != "" {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b verdict.ProgramViolation) int { return cmp.Compare(programRank(a), programRank(b)) })
	return out
}

// writeViolationTable is the table of new syscalls, then what the
// baseline allows of each new argument class's syscall, then the other
// programs that made each one.
func writeViolationTable(b *strings.Builder, vs verdict.Violations, command []string, p Palette) {
	fmt.Fprintf(b, "\nOutside the baseline:\n")
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "  ARCH\tSYSCALL\tNR\tCOUNT\t%s\tFIRST MADE BY\tADD AT\n", p.risk("RISK", false))
	for _, v := range vs {
		others := ""
		if k := len(v.Also) + v.More; k > 0 {
			others = fmt.Sprintf(" +%d other", k)
			if k > 1 {
				others += "s"
			}
		}
		first := asStarted(v, command)
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s (%s, pid %d)%s\t%s\n",
			v.Arch, v.Syscall, v.Number, v.Count, p.risk(OrDash(v.RiskLabel()), v.Risk.Risky()), term(first.Exe), term(first.Comm), v.PID, others, position(v.File, v.Line))
	}
	tw.Flush()
	writeRiskyEntries(b, vs)
	writeClassNotes(b, vs)
	header := false
	for _, v := range vs {
		if len(v.Also) == 0 {
			continue
		}
		if !header {
			fmt.Fprintf(b, "\nAlso made by:\n")
			header = true
		}
		progs := make([]string, len(v.Also))
		for i, c := range v.Also {
			progs[i] = fmt.Sprintf("%s (%s, pid %d) x%d", term(c.Exe), term(c.Comm), c.PID, c.Count)
		}
		more := ""
		if v.More > 0 {
			more = fmt.Sprintf(" and %d more", v.More)
		}
		fmt.Fprintf(b, "  %s %s: %s%s\n", v.Arch, v.Syscall, strings.Join(progs, ", "), more)
	}
}

// writeRiskyEntries gives the entry of each risky new syscall as it must
// be written, with a reason: "- bpf" alone is refused.
func writeRiskyEntries(b *strings.Builder, vs verdict.Violations) {
	header := false
	for _, v := range vs {
		if !v.Risk.Risky() || v.File == "" {
			continue
		}
		if !header {
			fmt.Fprintf(b, "\nRisky: each entry needs a reason (record's placeholder, or yours):\n")
			header = true
		}
		fmt.Fprintf(b, "  add to the %s list at %s:%s\n", v.Arch, position(v.File, v.Line), hintBlockAt("  ", syscallLines(v.Syscall, true)))
	}
}

// writeClassNotes says, for each new argument class, what the baseline
// allows of its syscall: the table has no room for it.
func writeClassNotes(b *strings.Builder, vs verdict.Violations) {
	header := false
	for _, v := range vs {
		note := v.ClassNote()
		if note == "" {
			continue
		}
		if !header {
			fmt.Fprintf(b, "\nArgument classes:\n")
			header = true
		}
		fmt.Fprintf(b, "  %s %s: %s\n", v.Arch, v.Syscall, note)
	}
}

// position is "file:line" for a terminal, "-" without a file.
func position(file string, line int) string {
	if file == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// WriteRecorded renders what sysgate record wrote into a baseline file:
// the entries added and removed, and the numbers it could not name.
func WriteRecorded(w io.Writer, path string, res *baseline.RecordResult, p Palette) error {
	var b strings.Builder
	fmt.Fprintf(&b, "wrote %s: %d added, %d removed", path, len(res.Added), len(res.Removed))
	if n := len(res.PinChanges); n > 0 {
		fmt.Fprintf(&b, ", %d program pin(s) changed", n)
	}
	b.WriteString("\n")
	for _, f := range res.Added {
		tag := ""
		if f.Risk.Risky() {
			tag = "  " + p.risk(fmt.Sprintf("[risky: %s: %s; give it a real reason]", f.RiskLabel(), risk.Reason(f.Syscall)), true)
		}
		fmt.Fprintf(&b, "  + %s %s%s\n", f.Arch, f.Syscall, tag)
	}
	for _, f := range res.Removed {
		fmt.Fprintf(&b, "  - %s %s\n", f.Arch, f.Syscall)
	}
	for _, f := range res.Skipped {
		fmt.Fprintf(&b, "  ! %s syscall %s has no name: it stays a violation\n", f.Arch, f.Syscall)
	}
	for _, c := range res.PinChanges {
		fmt.Fprintf(&b, "  ~ program %s\n", term(c.String()))
	}
	// A glob record wrote that covers credentials: the gate keeps them
	// out of it until a person gives the entry a reason; say so here, not
	// only in validate.
	for _, f := range res.AddedFiles {
		switch {
		case f.Covers != "":
			fmt.Fprintf(&b, "  ! files %s %s %s: the gate lets it reach them only once a person gives the entry a reason\n", f.Op, term(f.Path), f.Covers)
		case f.Sensitive != "":
			fmt.Fprintf(&b, "  ! files %s %s names a sensitive path (%s, %s): give it a real reason\n", f.Op, term(f.Path), f.Sensitive, f.Level)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
