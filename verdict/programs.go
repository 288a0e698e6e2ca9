package verdict

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// Program roles: how a program came to run.
const (
	RoleProgram     = "program"     // named by an execve
	RoleScript      = "script"      // a "#!" file an execve named, or the script an interpreter was given
	RoleInterpreter = "interpreter" // the interpreter a "#!" line named
)

// ProgramRun is one program the run's processes ran, by path, with the
// first exec that ran it.
type ProgramRun struct {
	// Path is absolute with symlinks resolved, as the kernel opened it
	// ("memfd:NAME" for a program run from memory).
	Path string `json:"path"`
	Role string `json:"role"`
	// Requested is the path the exec named, when it differs from Path.
	Requested string `json:"requested,omitempty"`
	// Argv is the first exec's argument list: at most ArgvShown
	// arguments of at most ArgvWidth bytes, values that look like secrets
	// replaced by "<redacted>".
	Argv []string `json:"argv"`
	// Parent is the program that ran it (the caller's executable at the
	// exec); "" for the agent's start, which sysgate's launcher makes.
	Parent string `json:"parent"`
	// SHA256 are the contents the program ran with (sha256, lowercase
	// hex, sorted): one, unless it was rewritten during the run; none
	// when sysgate could not read it.
	SHA256 []string   `json:"sha256,omitempty"`
	PID    int        `json:"pid"`
	Count  uint64     `json:"count"`
	Risk   risk.Class `json:"risk,omitempty"`
	Level  risk.Level `json:"level,omitempty"`
}

// ProgramViolation is a program outside the baselines' programs, or an
// exec whose program is not the one it named.
type ProgramViolation struct {
	ProgramRun
	// File and Line: where the program's line would go.
	File string `json:"file"`
	Line int    `json:"line"`
	// Fix is the program's line as record would write it into File
	// (baseline.Profile.ProgramLine); "" in results of older versions.
	Fix string `json:"fix,omitempty"`
	// Mismatch says why the exec was not what it claimed: the path read
	// from the caller's memory named one program and the kernel ran
	// another (another thread changed it in between). "" otherwise.
	Mismatch string `json:"mismatch,omitempty"`
}

// How much of an exec's argv a report shows.
const (
	ArgvShown = 8
	ArgvWidth = 80
)

// RiskLabel is "shell, high" for a risky program; "" when not risky.
func (p ProgramRun) RiskLabel() string { return p.Risk.Label(p.Level) }

// String is one line for Gomega and logs, as Violation's: "program
// /usr/bin/curl [risky: downloader, high] x1 (curl -s 'http://a b') run
// by /usr/bin/python3.13 (pid 42) -> base.yaml:17". A mismatch comes
// first: it, not the program, is why the exec is a violation.
func (v ProgramViolation) String() string {
	var b strings.Builder
	b.WriteString("program ")
	if v.Mismatch != "" {
		fmt.Fprintf(&b, "MISMATCH (%s): ", v.Mismatch)
	}
	b.WriteString(v.Path)
	if v.Role != "" && v.Role != RoleProgram {
		fmt.Fprintf(&b, " (%s)", v.Role)
	}
	if v.Risk.Risky() {
		fmt.Fprintf(&b, " [risky: %s]", v.RiskLabel())
	}
	fmt.Fprintf(&b, " x%d (%s)", v.Count, quotedArgv(v.Argv))
	if v.Parent == "" {
		fmt.Fprintf(&b, " as the agent's start (pid %d)", v.PID)
	} else {
		fmt.Fprintf(&b, " run by %s (pid %d)", v.Parent, v.PID)
	}
	if v.File != "" {
		fmt.Fprintf(&b, " -> %s:%d", v.File, v.Line)
	}
	return untrusted.Terminal(b.String()) // one line of names the agent chose
}

// UnverifiedExec counts the unverified execs (Result.UnverifiedExecs)
// that named one program.
type UnverifiedExec struct {
	Path  string `json:"path"`
	Count uint64 `json:"count"`
}

// quotedArgv joins argv for String, single-quoting the arguments a
// reader could not tell apart otherwise (spaces, quotes, empty ones).
func quotedArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// ProgramViolationsAgainst lists the programs of r outside p's programs
// (none when p has no programs section), and every exec that ran another
// program than it named.
func (r *Result) ProgramViolationsAgainst(p *baseline.Profile) []ProgramViolation {
	var out []ProgramViolation
	if p.GatesPrograms() {
		for _, run := range r.Programs {
			if !p.AllowsProgram(run.Path) {
				v := ProgramViolation{ProgramRun: run}
				v.File, v.Line = p.ProgramInsert(run.Path)
				v.Fix = p.ProgramLine(run.Path)
				out = append(out, v)
			}
		}
	}
	for _, v := range r.ProgramViolations {
		if v.Mismatch != "" {
			out = append(out, v)
		}
	}
	return out
}
