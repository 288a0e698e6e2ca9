package cli

import (
	"errors"
	"flag"
	"os"
	"strings"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/scmp"
)

func init() {
	register("report annotations", "print GitHub annotations for the new syscalls in Ginkgo JSON reports or result files", (*Command).runReportAnnotations)
	register("report summary", "print the markdown summary CI writes to the step summary (also for terminals)", (*Command).runReportSummary)
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// reportInputs are the flags every report verb reads its results with.
type reportInputs struct {
	ginkgo, results listFlag
	root, arch      string
}

func (in *reportInputs) register(fs *flag.FlagSet) {
	fs.Var(&in.ginkgo, "ginkgo-json", "a Ginkgo JSON report (--json-report); repeatable")
	fs.Var(&in.results, "result", "a sysgate result JSON file (check --format json); repeatable")
	fs.StringVar(&in.root, "root", "", "repository root baseline paths are made relative to (default: the enclosing git repository)")
	fs.StringVar(&in.arch, "arch", scmp.Native().String(), "arch of runs whose result does not name it")
}

// load reads every input file; files given as arguments are told apart
// by their content.
func (c *Command) loadReport(in *reportInputs, args []string) (*ci.Report, int) {
	paths := append(append(append([]string{}, in.ginkgo...), in.results...), args...)
	if len(paths) == 0 {
		return nil, c.errorf(ExitUsage, "no input: give --ginkgo-json FILE or --result FILE")
	}
	root := in.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, c.errorf(ExitInconclusive, "%v", err)
		}
		root = ci.FindRoot(wd)
	}
	r, err := ci.Load(ci.LoadOptions{Root: root, HostArch: in.arch}, paths...)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, ci.ErrNoResults) {
			return nil, c.errorf(ExitInconclusive, "%v", err)
		}
		return nil, c.errorf(ExitUsage, "%v", err)
	}
	return r, ExitOK
}

// verdictCode maps a report's verdict to the exit code of a gate.
func verdictCode(v ci.Verdict) int {
	switch v {
	case ci.VerdictClean:
		return ExitOK
	case ci.VerdictViolation:
		return ExitViolation
	}
	return ExitInconclusive
}

func (c *Command) runReportAnnotations(args []string) int {
	return c.runReport("report annotations", args, func(r *ci.Report) error { return r.WriteAnnotations(c.Stdout) })
}

func (c *Command) runReportSummary(args []string) int {
	return c.runReport("report summary", args, func(r *ci.Report) error { return r.WriteSummary(c.Stdout) })
}

// runReport parses the common flags, loads the inputs and renders them.
// The exit code is 0 once rendered, unless --exit-code asks for the
// verdict's (1 violation, 3 inconclusive): in CI the test step already
// failed, and the report step should still show its output.
func (c *Command) runReport(path string, args []string, render func(*ci.Report) error) int {
	fs := c.flagSet(path, "[FILE...]")
	var in reportInputs
	in.register(fs)
	exitCode := fs.Bool("exit-code", false, "exit 1 on a violation and 3 on an inconclusive run")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	r, code := c.loadReport(&in, fs.Args())
	if r == nil {
		return code
	}
	if err := render(r); err != nil {
		return c.errorf(ExitInconclusive, "%s: %v", path, err)
	}
	if *exitCode {
		return verdictCode(r.Verdict())
	}
	return ExitOK
}
