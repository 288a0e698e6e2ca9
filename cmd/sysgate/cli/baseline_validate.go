package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
)

func init() {
	register("baseline validate", "check baseline files and what they extend; print file:line: message [kind]", (*Command).runBaselineValidate)
}

func (c *Command) runBaselineValidate(args []string) int {
	fs := c.flagSet("baseline validate", "FILE... [-- CMD [ARGS...]]  (CMD: the run's command, which picks its runtime layers)")
	strict := fs.Bool("strict", false, "treat warnings (unreviewed reasons, comments fmt drops, argument-blind entries, no programs, files or network section) as errors: printed as errors, exit 2")
	format := fs.String("format", "text", "text, or github (workflow commands that annotate the lines in a pull request)")
	var cmd runCommand
	cmd.register(fs)
	if code, ok := c.parseFileArgs(fs, args); !ok {
		return code
	}
	if *format != "text" && *format != "github" {
		fs.Usage()
		return ExitUsage
	}
	paths, argv := splitCommand(fs.Args())
	cmd.argv = argv
	if len(paths) == 0 {
		fs.Usage()
		return ExitUsage
	}
	sel, err := c.selector(cmd)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	code := ExitOK
	// alone: recorded layers validated on their own, not as a stack.
	alone := map[string]bool{}
	for i := 0; i < len(paths); i++ {
		path := paths[i]
		// A layer the selection cannot pick ({go} where PATH starts no
		// Go and no command was given) is no error: each recorded layer
		// the entry can pick is validated on its own instead. With the
		// run's command it is one: the run could not pick it either.
		p, err := baseline.LoadStackPartial(nil, sel, path)
		if err != nil && !errors.Is(err, baseline.ErrInvalid) {
			code = c.errorf(ExitUsage, "%v", err)
			continue
		}
		findings := baseline.Errors(err)
		if p != nil {
			findings = p.Warnings()
			unselected := false
			for _, l := range p.Layers() {
				if len(l.Missing) == 0 {
					continue
				}
				unselected = true
				findings = append(findings, unselectedNote(l, len(argv) > 0))
				for _, r := range l.Recorded {
					if !slices.Contains(paths, r) {
						paths, alone[r] = append(paths, r), true
					}
				}
			}
			// Whether the stack gates a section depends on every
			// file of it: not judged without its layer, nor for a
			// layer alone.
			if !unselected && !alone[path] {
				findings = append(findings, blindWarnings(p)...)
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

// unselectedNote says that l's layer was not picked and which layers
// were validated instead: advisory (--strict passes it) without the
// run's command, an error with it (the run could not pick it either).
func unselectedNote(l baseline.LayerChoice, command bool) *baseline.Error {
	layers := "none is recorded yet"
	if len(l.Recorded) > 0 {
		layers = "validated each recorded layer on its own: " + strings.Join(l.Recorded, ", ")
	}
	if command {
		return &baseline.Error{File: l.File, Line: l.Line, Kind: baseline.KindExtends,
			Message: fmt.Sprintf("extends %s: the command gives no %s (it starts no such runtime here), so a run cannot pick this layer; %s",
				l.Pattern, braces(l.Missing), layers)}
	}
	return &baseline.Error{File: l.File, Line: l.Line, Kind: baseline.KindExtends, Warning: true, Advisory: true,
		Message: fmt.Sprintf("extends %s: this machine gives no %s (a run takes it from its command: the interpreter or Go binary it starts; "+
			"name it after the files: -- CMD [ARGS...]); %s, and the stack's sections are not judged without its layer", l.Pattern, braces(l.Missing), layers)}
}

// blindWarnings are p's warnings for the programs, files and network
// it does not gate.
func blindWarnings(p *baseline.Profile) []*baseline.Error {
	var out []*baseline.Error
	for _, w := range []*baseline.Error{p.ProgramBlindWarning(), p.FileBlindWarning(), p.NetworkBlindWarning()} {
		if w != nil {
			out = append(out, w)
		}
	}
	return out
}

func findingAnnotation(f *baseline.Error, failed bool) ci.Annotation {
	level := "warning"
	if failed {
		level = "error"
	}
	return ci.Annotation{Level: level, File: f.File, Line: f.Line, Title: "sysgate baseline " + f.Kind, Message: f.Message}
}
