package harness

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
)

// acceptHint tells the reader how to accept new syscalls: with the
// command the run's caller named (WithAcceptCommand: the suites' make
// target, a user's own), else by editing the baseline.
func (r *Result) acceptHint() string {
	if r.AcceptCommand == "" {
		return "If the new syscalls are expected, add them to the baseline with a reason and review the baseline diff in the pull request."
	}
	return "If the new syscalls are expected, add them to the baseline with a reason, or run `" + r.AcceptCommand +
		"` and review the baseline diff in the pull request."
}

// RunError is the error form of a result that is not clean, so
// Expect(r.Err()).To(Succeed()) prints the readable diff.
type RunError struct{ Result *Result }

// Err returns nil for a clean run, else a *RunError.
func (r *Result) Err() error {
	if r.Verdict == VerdictClean {
		return nil
	}
	return &RunError{Result: r}
}

func (e *RunError) Error() string { return e.Result.Summary() }

// FormattedGomegaError is what Gomega prints for the error (a plain
// method: Gomega finds it by its name, harness does not import Gomega).
func (e *RunError) FormattedGomegaError() string {
	r := e.Result
	switch r.Verdict {
	case VerdictInconclusive:
		return fmt.Sprintf("sysgate: run of %s was inconclusive: %s", r.Agent, r.Inconclusive)
	case VerdictAgentFailed:
		return fmt.Sprintf("sysgate: %s stayed within its baseline, but the agent failed (%s)", r.Agent, r.ExitText())
	}
	files := strings.Join(r.Baselines, ", ")
	if files == "" {
		files = "its baseline"
	}
	return r.ViolationReport(r.Violations, r.ProgramViolations, files)
}

// ViolationReport is the readable diff of vs and pvs, violations of r
// against the baseline files named by files: each new syscall per arch
// with its risk, the process that made it and the baseline line to add,
// each program outside the programs list with what ran it, then how to
// accept them.
func (r *Result) ViolationReport(vs Violations, pvs []ProgramViolation, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Expected %s to stay within %s\n", r.Agent, files)
	if len(vs) > 0 || (len(pvs) == 0 && len(r.FileViolations) == 0 && len(r.NetworkViolations) == 0) {
		fmt.Fprintf(&b, "but it made %d syscalls outside it (%s mode):\n%s\n", len(vs), r.Mode, vs)
	}
	if fvs := r.FileViolations; len(fvs) > 0 {
		fmt.Fprintf(&b, "but it touched %d %s outside it (%s mode):\n", len(fvs), plural(len(fvs), "file", "files"), r.Mode)
		for _, v := range fvs {
			fmt.Fprintf(&b, "  %s\n", v)
		}
	}
	if nvs := r.NetworkViolations; len(nvs) > 0 {
		fmt.Fprintf(&b, "but it reached %d %s outside it (%s mode):\n", len(nvs), plural(len(nvs), "destination", "destinations"), r.Mode)
		for _, v := range nvs {
			fmt.Fprintf(&b, "  %s\n", v)
		}
	}
	if len(pvs) > 0 {
		fmt.Fprintf(&b, "but it ran %d %s outside it (%s mode):\n", len(pvs), plural(len(pvs), "program", "programs"), r.Mode)
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
	if h := r.ArchHint(); h != "" {
		b.WriteString(h + "\n")
	}
	b.WriteString(r.acceptHint())
	return b.String()
}

func riskyCount(vs Violations) int {
	n := 0
	for _, v := range vs {
		if v.Risk.Risky() {
			n++
		}
	}
	return n
}

// ViolationsAgainst diffs r's observation against p, attributing each new
// syscall to the process that made it first (known to results from Run;
// a result decoded from JSON knows it only for its own violations).
func (r *Result) ViolationsAgainst(p *baseline.Profile) Violations {
	first := r.firstCalls
	if first == nil {
		first = map[syscallKey]*firstCall{}
		for _, v := range r.Violations {
			first[syscallKey{v.Arch, v.Syscall}] = &firstCall{number: v.Number, pid: v.PID, exe: v.Exe, comm: v.Comm, also: v.Also, more: v.More, start: v.AgentStart}
		}
	}
	return attribute(baseline.Diff(p, r.Observed).New, first).withAllowed(p)
}

// withAllowed fills in, for each class violation, the classes of its
// syscall that p allows.
func (vs Violations) withAllowed(p *baseline.Profile) Violations {
	for i, v := range vs {
		if name, class := argclass.SplitKey(v.Syscall); class != "" {
			vs[i].Allowed = p.Classes(v.Arch, name)
		}
	}
	return vs
}
