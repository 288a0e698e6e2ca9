package cli

import (
	"errors"
	"fmt"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
)

func init() {
	register("baseline validate", "check baseline files and what they extend; print file:line: message [kind]", (*Command).runBaselineValidate)
}

func (c *Command) runBaselineValidate(args []string) int {
	fs := c.flagSet("baseline validate", "FILE...")
	strict := fs.Bool("strict", false, "treat warnings (unreviewed reasons, comments fmt drops, argument-blind entries, no programs, files or network section) as errors: printed as errors, exit 2")
	format := fs.String("format", "text", "text, or github (workflow commands that annotate the lines in a pull request)")
	if code, ok := c.parseFileArgs(fs, args); !ok {
		return code
	}
	if *format != "text" && *format != "github" {
		fs.Usage()
		return ExitUsage
	}
	code := ExitOK
	for _, path := range fs.Args() {
		p, err := c.loadStack(path)
		if err != nil && !errors.Is(err, baseline.ErrInvalid) {
			code = c.errorf(ExitUsage, "%v", err)
			continue
		}
		findings := baseline.Errors(err)
		if p != nil {
			findings = p.Warnings()
			if w := p.ProgramBlindWarning(); w != nil {
				findings = append(findings, w)
			}
			if w := p.FileBlindWarning(); w != nil {
				findings = append(findings, w)
			}
			if w := p.NetworkBlindWarning(); w != nil {
				findings = append(findings, w)
			}
			findings = append(findings, p.ProgramPinWarnings()...)
		}
		for _, f := range findings {
			// Advisory findings (entries written before pins existed, a
			// pinned program the agent can write) must not fail every
			// such baseline under --strict.
			failed := !f.Warning || (*strict && !f.Advisory)
			if failed {
				code = ExitUsage
			}
			if *format == "github" {
				fmt.Fprintln(c.Stdout, findingAnnotation(f, failed))
				continue
			}
			if failed && f.Warning {
				// --strict fails on it: it reads as the error it is.
				strictErr := *f
				strictErr.Warning = false
				f = &strictErr
			}
			fmt.Fprintln(c.Stdout, f)
		}
	}
	return code
}

func findingAnnotation(f *baseline.Error, failed bool) ci.Annotation {
	level := "warning"
	if failed {
		level = "error"
	}
	return ci.Annotation{Level: level, File: f.File, Line: f.Line, Title: "sysgate baseline " + f.Kind, Message: f.Message}
}
