package ci

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/harness"
)

// ViolationReport is the readable diff of vs and pvs, violations of r
// against the baseline files named by files: each new syscall per arch
// with its risk, the process that made it and the baseline line to add,
// each program outside the programs list with what ran it, then how to
// accept them. The gatetest matchers and gatetest.Err print it.
func ViolationReport(r *harness.Result, vs harness.Violations, pvs []harness.ProgramViolation, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Expected %s to stay within %s\n", r.Agent, files)
	if len(vs) > 0 || (len(pvs) == 0 && len(r.FileViolations) == 0 && len(r.NetworkViolations) == 0) {
		fmt.Fprintf(&b, "but it made %d syscalls outside it (%s mode):\n%s\n", len(vs), r.Mode, vs)
	}
	if fvs := r.FileViolations; len(fvs) > 0 {
		fmt.Fprintf(&b, "but it touched %s outside it (%s mode):\n", Count(len(fvs), "file", "files"), r.Mode)
		for _, v := range fvs {
			fmt.Fprintf(&b, "  %s\n", v)
		}
	}
	if nvs := r.NetworkViolations; len(nvs) > 0 {
		fmt.Fprintf(&b, "but it reached %s outside it (%s mode):\n", Count(len(nvs), "destination", "destinations"), r.Mode)
		for _, v := range nvs {
			fmt.Fprintf(&b, "  %s\n", v)
		}
	}
	if len(pvs) > 0 {
		fmt.Fprintf(&b, "but it ran %s outside it (%s mode):\n", Count(len(pvs), "program", "programs"), r.Mode)
		for _, v := range pvs {
			fmt.Fprintf(&b, "  %s\n", v)
		}
	}
	if r.UnknownABI > 0 {
		fmt.Fprintf(&b, "  plus %d syscalls of an ABI sysgate cannot name\n", r.UnknownABI)
	}
	if risky := riskyCount(vs); risky > 0 {
		fmt.Fprintf(&b, "%d of them are risky: they need a reason in the baseline and a careful review.\n", risky)
	}
	if h := ArchHint(r); h != "" {
		b.WriteString(h + "\n")
	}
	b.WriteString(acceptHint(r))
	return b.String()
}

// acceptHint tells the reader of a spec's failure how to accept new
// syscalls: with the command the run's caller named
// (harness.WithAcceptCommand: the suites' make target, a user's own),
// else by editing the baseline.
func acceptHint(r *harness.Result) string {
	if r.AcceptCommand == "" {
		return "If the new syscalls are expected, add them to the baseline with a reason and review the baseline diff in the pull request."
	}
	return "If the new syscalls are expected, add them to the baseline with a reason, or run `" + r.AcceptCommand +
		"` and review the baseline diff in the pull request."
}

func riskyCount(vs harness.Violations) int {
	n := 0
	for _, v := range vs {
		if v.Risk.Risky() {
			n++
		}
	}
	return n
}

// FailureText is what a failing spec prints for a run that is not clean:
// why it was inconclusive or its agent failed, else the readable diff
// against its baselines (ViolationReport). gatetest.Err's Gomega message.
func FailureText(r *harness.Result) string {
	switch r.Verdict {
	case harness.VerdictInconclusive:
		return fmt.Sprintf("sysgate: run of %s was inconclusive: %s", r.Agent, r.Inconclusive)
	case harness.VerdictAgentFailed:
		return fmt.Sprintf("sysgate: %s stayed within its baseline, but the agent failed (%s)", r.Agent, ExitText(r))
	}
	files := strings.Join(r.Baselines, ", ")
	if files == "" {
		files = "its baseline"
	}
	return ViolationReport(r, r.Violations, r.ProgramViolations, files)
}
