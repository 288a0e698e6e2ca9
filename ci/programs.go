package ci

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// argvLine renders an exec's argument list as a shell would read it:
// arguments with spaces or shell characters quoted. The harness has
// already cut it short and put "<redacted>" for secret-looking values;
// that marker stays bare, since it stands for a value, not one.
func argvLine(argv []string) string {
	if len(argv) == 0 {
		return "(no arguments)"
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != redacted {
			a = ShellQuote(a)
		}
		out[i] = term(a)
	}
	return strings.Join(out, " ")
}

// redacted is what the harness puts in place of a secret-looking argument.
const redacted = "<redacted>"

// ranBy names what ran a program: "run by /usr/bin/python3.13, pid 42",
// or the agent's start, which sysgate's launcher execs.
func ranBy(p verdict.ProgramRun) string {
	if p.Parent == "" {
		return fmt.Sprintf("run as the agent's start, pid %d", p.PID)
	}
	return fmt.Sprintf("run by %s, pid %d", term(p.Parent), p.PID)
}

// programLines are the lines of a programs list that allow v's program,
// with a reason when it is risky (the parser refuses a risky program
// without one).
func programLines(v verdict.ProgramViolation) []string {
	line := v.Fix
	if line == "" {
		line = v.Path // a result of an older version
	}
	return pathLines(line, v.Risk.Risky())
}

// programNotes are what a report says after a program's path: its role
// when it is not a plain program, and the path the exec named when that
// differs (a symlink) and no mismatch says so already.
func programNotes(v verdict.ProgramViolation) string {
	var notes []string
	if v.Role != "" && v.Role != verdict.RoleProgram {
		notes = append(notes, v.Role)
	}
	if v.Requested != "" && v.Mismatch == "" {
		notes = append(notes, "exec named "+term(v.Requested))
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// mismatchFix says why a mismatch is no baseline matter: an exec that
// ran another program than it named, or (a pin's) content that is not
// the pinned one.
func mismatchFix(mismatch string) string {
	if strings.Contains(mismatch, " pins sha256 ") {
		return "No new line fixes this: the pin is the gate. If the agent is meant to run the new content (an upgrade), " +
			"record again and review the pin's change in the diff; otherwise find what replaced the file."
	}
	return "No baseline line fixes this: the path the exec named changed before the kernel ran it, " +
		"which is how an agent would slip a program past the gate; find what in the agent did it."
}

// writeProgramViolations is the terminal's block of programs outside the
// baseline: each with its risk, the first exec's command line, what ran
// it and the line that would allow it; a mismatch is the reason where
// there is one.
func writeProgramViolations(b *strings.Builder, vs []verdict.ProgramViolation, p Palette) {
	fmt.Fprintf(b, "\nPrograms outside the baseline:\n")
	for _, v := range vs {
		risk := ""
		if v.Risk.Risky() {
			risk = " " + p.risk("[risky: "+v.RiskLabel()+"]", true)
		}
		fmt.Fprintf(b, "  %s%s%s, %s\n", term(v.Path), programNotes(v), risk, Count(v.Count, "exec", "execs"))
		if v.Mismatch != "" {
			fmt.Fprintf(b, "    %s: %s\n", p.alarm("MISMATCH"), term(v.Mismatch))
		}
		fmt.Fprintf(b, "    argv: %s\n", argvLine(v.Argv))
		fmt.Fprintf(b, "    %s\n", ranBy(v.ProgramRun))
		switch {
		case v.Mismatch != "":
			fmt.Fprintf(b, "    %s\n", mismatchFix(v.Mismatch))
		case v.File != "":
			fmt.Fprintf(b, "    add to programs: at %s:%s\n", position(v.File, v.Line), hintBlockAt("    ", programLines(v)))
		}
	}
}

// unverifiedCount is how a report counts the execs sysgate could not
// confirm: ordinary short-lived children, so a count, not a warning.
func unverifiedCount(n uint64) string {
	return fmt.Sprintf("%s unverified (gone before /proc showed the program)", Count(n, "exec", "execs"))
}

// unverifiedOutsideNote is the warning for unverified execs that named a
// program outside the baseline.
func unverifiedOutsideNote(u verdict.UnverifiedExec) string {
	return fmt.Sprintf("sysgate could not verify the program of %s of %s, outside the baseline: the process was gone before /proc showed what it ran",
		Count(u.Count, "exec", "execs"), term(u.Path))
}

// mismatches counts the exec mismatches among vs.
func mismatches(vs []verdict.ProgramViolation) int {
	n := 0
	for _, v := range vs {
		if v.Mismatch != "" {
			n++
		}
	}
	return n
}

// recorded is verdict.Result.Recorded, except that an exec mismatch is
// never what a record run learns: it stays a violation.
func recorded(r *verdict.Result) bool { return r.Recorded() && mismatches(r.ProgramViolations) == 0 }

// programRank orders program violations: mismatches lead, then high
// risks, other risks, and the rest.
func programRank(v verdict.ProgramViolation) int {
	switch {
	case v.Mismatch != "":
		return 0
	case !v.Risk.Risky():
		return 3
	case v.Level == risk.High:
		return 1
	}
	return 2
}
