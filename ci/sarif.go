package ci

import (
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// sarifInformationURI is where code scanning links the tool's name.
const sarifInformationURI = "https://github.com/sysgate/sysgate"

// WriteSARIF renders the report's new syscalls, programs, files and
// destinations as a SARIF 2.1.0 log for GitHub code scanning (check
// --format sarif, report sarif): a rule per syscall, with its risk class,
// one per program risk class (program/shell, program/unlisted,
// program/mismatch, ...), per file access (file/read,
// file/sensitive-read, ...) and per network call (network/connect,
// network/connect-cloud-metadata, ...); a result per new syscall of each
// agent and arch and per program, file access and destination of each
// agent, located at the baseline (line) where it would be added.
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
			WithProperties(sarifRuleProperties("syscall", n.Risk, n.Level))
		addSARIFResult(run, id, sarifMessage(n), n.File, n.Line)
	}
	for _, n := range r.programRows() {
		id, text := sarifProgramRule(n.ProgramViolation)
		props := sarifRuleProperties("program", n.Risk, n.Level)
		if n.Mismatch != "" {
			// A path swapped under the exec is an attack on the gate,
			// whatever the program: the rule is not about its risk.
			props = sarifRuleProperties("program", risk.None, risk.NoLevel)
			props["tags"] = []string{"security", "program", "mismatch"}
			props["security-severity"] = "9.0"
		}
		run.AddRule(id).WithName(strings.TrimPrefix(id, "program/")).
			WithDescription(text).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel("error")).
			WithProperties(props)
		addSARIFResult(run, id, sarifProgramMessage(n), n.File, n.Line)
	}
	for _, gr := range r.gateRuns() {
		for _, v := range gr.FileViolations {
			id, text := "file/"+v.Op.String(), fmt.Sprintf("file %s outside the baseline's files section", v.Op)
			props := sarif.Properties{"tags": []string{"security", "file"}, "security-severity": "5.0"}
			if v.Sensitive != "" {
				id, text = "file/sensitive-"+v.Op.String(), fmt.Sprintf("%s of a sensitive file outside the baseline's files section", v.Op)
				props["tags"] = []string{"security", "file", "sensitive"}
				props["security-severity"] = "9.0"
			}
			run.AddRule(id).WithName(strings.TrimPrefix(id, "file/")).WithDescription(text).
				WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel("error")).WithProperties(props)
			addSARIFResult(run, id, fmt.Sprintf("%s: %s. %s", gr.Agent, fileViolationLine(v), fileFix(v)), r.baselinePath(gr, v.File), v.Line)
		}
	}
	r.addSARIFNetwork(run)
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

// addSARIFResult adds a finding of rule id at file:line ("" for none).
func addSARIFResult(run *sarif.Run, id, msg, file string, line int) {
	res := run.CreateResultForRule(id).WithLevel("error").WithMessage(sarif.NewTextMessage(msg))
	if file != "" {
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(file))
		if line > 0 {
			loc = loc.WithRegion(sarif.NewRegion().WithStartLine(line))
		}
		res.AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
}

// sarifRuleID names a syscall's rule; argument classes will get their
// own prefix.
func sarifRuleID(syscall string) string { return "syscall/" + syscall }

func sarifRuleText(v verdict.Violation) string {
	if v.Risk.Risky() {
		return fmt.Sprintf("syscall %s outside the baseline (%s risk): %s", v.Syscall, v.RiskLabel(), risk.Reason(v.Syscall))
	}
	return fmt.Sprintf("syscall %s outside the baseline", v.Syscall)
}

// sarifRuleProperties carry the kind of finding ("syscall", "program"),
// the risk class and level, and the security-severity GitHub ranks alerts
// by: a high risk is critical, any other risky finding high, any other
// medium (it still fails the gate).
func sarifRuleProperties(kind string, class risk.Class, level risk.Level) sarif.Properties {
	props := sarif.Properties{"tags": []string{"security", kind}, "security-severity": "5.0", "risk": "none", "risk-level": "none"}
	if class.Risky() {
		props["tags"] = []string{"security", kind, string(class)}
		props["security-severity"] = "8.0"
		props["risk"] = string(class)
		props["risk-level"] = string(risk.Medium)
	}
	if class.Risky() && level == risk.High {
		props["security-severity"] = "9.0"
		props["risk-level"] = string(risk.High)
	}
	return props
}

// sarifMessage is the result's text: who made the call, how often, what
// the baseline allows of an argument class's syscall, and where the
// baseline would list it.
func sarifMessage(n newRow) string {
	msg := fmt.Sprintf("%s made %s (%s) outside its baseline: %s by %s", n.Agent, n.Syscall, n.Arch,
		Count(n.Count, "call", "calls"), term(n.Exe))
	if n.Risk.Risky() {
		msg += fmt.Sprintf(" [%s]", n.RiskLabel())
	}
	if note := n.ClassNote(); note != "" {
		msg += "; " + note
	}
	if n.File != "" {
		return msg + fmt.Sprintf(". Review it, then add to the %s list at %s:%d:%s", n.Arch, n.File, n.Line, hintBlock(syscallLines(n.Syscall, n.Risk.Risky())))
	}
	return msg + "."
}

// sarifProgramRule is the rule of a program violation and its text: one
// rule per program risk class, one for programs without a risk, one for
// mismatches.
func sarifProgramRule(v verdict.ProgramViolation) (id, text string) {
	switch {
	case v.Mismatch != "":
		return "program/mismatch", "an exec ran another program than the one it named: the path changed under it"
	case v.Risk.Risky():
		return "program/" + string(v.Risk), fmt.Sprintf("program outside the baseline's programs (%s risk)", v.RiskLabel())
	}
	return "program/unlisted", "program outside the baseline's programs"
}

// sarifProgramMessage is a program result's text: who ran it, how, how
// often, and where the baseline would list it.
func sarifProgramMessage(n programRow) string {
	msg := fmt.Sprintf("%s ran %s outside its baseline: %s, first as `%s` (%s)", n.Agent, term(n.Path), Count(n.Count, "exec", "execs"),
		argvLine(n.Argv), ranBy(n.ProgramRun))
	if n.Risk.Risky() {
		msg += fmt.Sprintf(" [%s]", n.RiskLabel())
	}
	switch {
	case n.Mismatch != "":
		return msg + ". Mismatch: " + term(n.Mismatch) + ". " + mismatchFix(n.Mismatch)
	case n.File != "":
		return msg + fmt.Sprintf(". Review it, then add to programs: at %s:%d:%s", n.File, n.Line, hintBlock(programLines(n.ProgramViolation)))
	}
	return msg + "."
}
