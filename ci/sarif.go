package ci

import (
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
)

// sarifInformationURI is where code scanning links the tool's name.
const sarifInformationURI = "https://github.com/sysgate/sysgate"

// WriteSARIF renders the report's new syscalls as a SARIF 2.1.0 log for
// GitHub code scanning (check --format sarif, report sarif): a rule per
// syscall, with its risk class, and a result per new syscall of each
// agent and arch, located at the baseline line where it would be added.
// Inconclusive runs and failed specs are not findings in a file: the
// annotations and the summary report them.
func (r *Report) WriteSARIF(w io.Writer) error {
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("sysgate", sarifInformationURI)
	for _, n := range r.newRows() {
		id := sarifRuleID(n.Syscall)
		run.AddRule(id).WithName(n.Syscall).
			WithDescription(sarifRuleText(n.Violation)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel("error")).
			WithProperties(sarifRuleProperties(n.Violation))
		res := run.CreateResultForRule(id).WithLevel("error").WithMessage(sarif.NewTextMessage(sarifMessage(n)))
		if n.File != "" {
			loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(n.File))
			if n.Line > 0 {
				loc = loc.WithRegion(sarif.NewRegion().WithStartLine(n.Line))
			}
			res.AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
		}
	}
	if backends := r.backends(); len(backends) > 0 {
		// Which backend saw the syscalls, for whoever reads the log.
		run.PropertyBag = *sarif.NewPropertyBag()
		run.Add("sysgate/backend", strings.Join(backends, "; "))
	}
	log.AddRun(run)
	if err := log.PrettyWrite(w); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// sarifRuleID names a syscall's rule; argument classes will get their
// own prefix.
func sarifRuleID(syscall string) string { return "syscall/" + syscall }

func sarifRuleText(v harness.Violation) string {
	if v.Risk.Risky() {
		return fmt.Sprintf("syscall %s outside the baseline (%s risk): %s", v.Syscall, v.RiskLabel(), baseline.RiskReason(v.Syscall))
	}
	return fmt.Sprintf("syscall %s outside the baseline", v.Syscall)
}

// sarifRuleProperties carry the risk class and level, and the
// security-severity GitHub ranks alerts by: a high risk is critical, any
// other risky syscall high, any other new syscall medium (it still fails
// the gate).
func sarifRuleProperties(v harness.Violation) sarif.Properties {
	props := sarif.Properties{"tags": []string{"security", "syscall"}, "security-severity": "5.0", "risk": "none", "risk-level": "none"}
	if v.Risk.Risky() {
		props["tags"] = []string{"security", "syscall", string(v.Risk)}
		props["security-severity"] = "8.0"
		props["risk"] = string(v.Risk)
		props["risk-level"] = string(baseline.LevelMedium)
	}
	if v.Risk.Risky() && v.Level == baseline.LevelHigh {
		props["security-severity"] = "9.0"
		props["risk-level"] = string(baseline.LevelHigh)
	}
	return props
}

// sarifMessage is the result's text: who made the call, how often, what
// the baseline allows of an argument class's syscall, and where the
// baseline would list it.
func sarifMessage(n newRow) string {
	msg := fmt.Sprintf("%s made %s (%s) outside its baseline: %s by %s", n.Agent, n.Syscall, n.Arch,
		Count(n.Count, "call", "calls"), n.Exe)
	if n.Risk.Risky() {
		msg += fmt.Sprintf(" [%s]", n.RiskLabel())
	}
	if note := n.ClassNote(); note != "" {
		msg += "; " + note
	}
	if n.File != "" {
		msg += fmt.Sprintf(". Review it, then add it at %s:%d", n.File, n.Line)
	}
	return msg + "."
}
