package ci

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/verdict"
)

// ViolationReport is the readable diff of vs and pvs, violations of r
// against the baseline files named by files: each new syscall per arch
// with its risk, the process that made it and the baseline line to add,
// each program outside the programs list with what ran it, then how to
// accept them. The gatetest matchers and gatetest.Err print it.
func ViolationReport(r *verdict.Result, vs verdict.Violations, pvs []verdict.ProgramViolation, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Expected %s to stay within %s\n", r.Agent, files)
	// Each kind most dangerous first, and the kind with the most
	// dangerous finding first: a read of an ssh key leads, whatever else
	// the run did.
	vs = verdict.Violations(byDanger(vs, riskRank))
	fvs := byDanger(r.FileViolations, fileDanger)
	nvs := byDanger(r.NetworkViolations, networkDanger)
	pvs = byDanger(pvs, programDanger)
	type section struct {
		danger int
		text   string
	}
	var sections []section
	if len(vs) > 0 || (len(pvs) == 0 && len(fvs) == 0 && len(nvs) == 0) {
		sections = append(sections, section{worst(vs, riskRank), fmt.Sprintf("but it made %d syscalls outside it (%s mode):\n%s\n", len(vs), r.Mode, vs)})
	}
	if len(fvs) > 0 {
		sections = append(sections, section{worst(fvs, fileDanger), fmt.Sprintf("but it touched %s outside it (%s mode):\n%s", Count(len(fvs), "file", "files"), r.Mode, indented(fvs))})
	}
	if len(nvs) > 0 {
		sections = append(sections, section{worst(nvs, networkDanger), fmt.Sprintf("but it reached %s outside it (%s mode):\n%s", Count(len(nvs), "destination", "destinations"), r.Mode, indented(nvs))})
	}
	if len(pvs) > 0 {
		sections = append(sections, section{worst(pvs, programDanger), fmt.Sprintf("but it ran %s outside it (%s mode):\n%s", Count(len(pvs), "program", "programs"), r.Mode, indented(pvs))})
	}
	slices.SortStableFunc(sections, func(a, b section) int { return dangerOrder(a.danger, b.danger) })
	for _, s := range sections {
		b.WriteString(s.text)
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
func acceptHint(r *verdict.Result) string {
	if r.AcceptCommand == "" {
		return "If the new syscalls are expected, add them to the baseline with a reason and review the baseline diff in the pull request."
	}
	return "If the new syscalls are expected, add them to the baseline with a reason, or run `" + r.AcceptCommand +
		"` and review the baseline diff in the pull request."
}

func riskyCount(vs verdict.Violations) int {
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
func FailureText(r *verdict.Result) string {
	switch r.Verdict {
	case verdict.VerdictInconclusive:
		return fmt.Sprintf("sysgate: run of %s was inconclusive: %s", r.Agent, r.Inconclusive)
	case verdict.VerdictAgentFailed:
		return fmt.Sprintf("sysgate: %s stayed within its baseline, but the agent failed (%s)", r.Agent, ExitText(r))
	}
	files := strings.Join(r.Baselines, ", ")
	if files == "" {
		files = "its baseline"
	}
	return ViolationReport(r, r.Violations, r.ProgramViolations, files)
}

// indented is one "  item" line per element of vs.
func indented[T fmt.Stringer](vs []T) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}
