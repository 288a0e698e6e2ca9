package ci

import (
	"strings"

	"github.com/sysgate/sysgate/verdict"
)

// recordCommand is how a person accepts new syscalls of a run: the
// command its caller named (Result.AcceptCommand), else for a CLI run the
// CLI with the run's own baseline file and command, which is what a user
// in their own repository can run; "" for a spec that named none.
func recordCommand(r *verdict.Result, file string, fromSpec bool) string {
	if r.AcceptCommand != "" {
		return "`" + term(r.AcceptCommand) + "`"
	}
	if fromSpec {
		return ""
	}
	if file == "" && len(r.Baselines) > 0 {
		file = r.Baselines[len(r.Baselines)-1]
	}
	if file == "" {
		file = "BASELINE"
	}
	cmd := "CMD"
	if len(r.Command) > 0 {
		quoted := make([]string, len(r.Command))
		for i, a := range r.Command {
			quoted[i] = term(ShellQuote(a))
		}
		cmd = strings.Join(quoted, " ")
	}
	return "`sysgate record --merge -o " + term(ShellQuote(file)) + term(RootFlags(r)) + " -- " + cmd + "` as root"
}

// updateHint tells the reader of a CLI run how to accept its new
// syscalls.
func updateHint(r *verdict.Result) string {
	file := ""
	for _, v := range r.Violations {
		if v.File != "" {
			file = v.File
			break
		}
	}
	return "If the new syscalls are expected, add each as `- NAME` to its arch's list at its ADD AT line (a risky one as shown above), or run " +
		recordCommand(r, file, false) + " and review the baseline diff in the pull request."
}

// asStarted names the agent's start as such: its execve is logged in
// sysgate's launcher (verdict.Violation.AgentStart), whose executable
// would read as if sysgate had made the call.
func asStarted(v verdict.Violation, command []string) verdict.Violation {
	if !v.AgentStart {
		return v
	}
	v.Exe, v.Comm = "the agent's start", "execve"
	if len(command) > 0 {
		v.Comm = "execve of " + ShellQuote(command[0])
	}
	return v
}
