package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/update"
)

func init() {
	register("report annotations", "print GitHub annotations for the new syscalls in Ginkgo JSON reports or result files", (*Command).runReportAnnotations)
	register("report summary", "print the markdown summary CI writes to the step summary (also for terminals)", (*Command).runReportSummary)
	register("report sarif", "print SARIF 2.1.0 for code scanning: the new syscalls at the baseline lines where they belong", (*Command).runReportSARIF)
	register("report observations", "write what the runs in Ginkgo JSON reports or result files observed, one <agent>.json per agent", (*Command).runReportObservations)
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
	fs.Var(&in.ginkgo, "ginkgo-json", "a Ginkgo JSON report `FILE` (--json-report); repeatable")
	fs.Var(&in.results, "result", "a sysgate result JSON `FILE` (check --result or --format json); repeatable")
	fs.StringVar(&in.root, "root", "", "the repository root `DIR` baseline paths are made relative to (default: the enclosing git repository)")
	fs.StringVar(&in.arch, "arch", scmp.Native().String(), "the `ARCH` of runs whose result does not name it")
}

// load reads every input file; files given as arguments are told apart
// by their content.
func (c *Command) loadReport(in *reportInputs, args []string) (*ci.Report, int) {
	paths := append(append(append([]string{}, in.ginkgo...), in.results...), args...)
	if len(paths) == 0 {
		return nil, c.errorf(ExitUsage, "no input: give --ginkgo-json FILE or --result FILE")
	}
	arch, err := scmp.ParseArch(in.arch)
	if err != nil {
		return nil, c.errorf(ExitUsage, "--arch: %v", err)
	}
	root := in.root
	if root == "" {
		if root, err = repoRoot(); err != nil {
			return nil, c.errorf(ExitInconclusive, "%v", err)
		}
	}
	r, err := ci.Load(ci.LoadOptions{Root: root, HostArch: arch}, paths...)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, ci.ErrNoResults) {
			return nil, c.errorf(ExitInconclusive, "%v", err)
		}
		return nil, c.errorf(ExitUsage, "%v", err)
	}
	return r, ExitOK
}

// repoRoot is the repository around the working directory: reports show
// baseline paths relative to it, as GitHub annotations need.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return ci.FindRoot(wd), nil
}

// verdictCode maps a verdict to the exit code of a gate: violation 1,
// inconclusive 3, agent failed 4, clean 0.
func verdictCode(v ci.Verdict) int {
	switch v {
	case ci.VerdictClean, ci.VerdictRecorded: // a record run that learned: what it is for
		return ExitOK
	case ci.VerdictViolation:
		return ExitViolation
	case ci.VerdictAgentFailed:
		return ExitAgentFailed
	}
	return ExitInconclusive
}

func (c *Command) runReportAnnotations(args []string) int {
	return c.runReport("report annotations", args, nil, func(r *ci.Report) error { return r.WriteAnnotations(c.Stdout) })
}

func (c *Command) runReportSummary(args []string) int {
	return c.runReport("report summary", args, nil, func(r *ci.Report) error { return r.WriteSummary(c.Stdout) })
}

func (c *Command) runReportSARIF(args []string) int {
	return c.runReport("report sarif", args, nil, func(r *ci.Report) error { return r.WriteSARIF(c.Stdout) })
}

func (c *Command) runReportObservations(args []string) int {
	var dir *string
	var checkRuns *bool
	return c.runReport("report observations", args, func(fs *flag.FlagSet) {
		dir = fs.String("o", "out/observations", "the `DIR` to write <agent>.json files to")
		checkRuns = fs.Bool("check-runs", false, "take check/enforce runs too: only their new syscalls (update baselines from them with pr-body --keep-unseen)")
	}, func(r *ci.Report) error {
		obs, err := r.Observations(*checkRuns)
		if err != nil {
			return err
		}
		if len(obs) == 0 {
			return noObservations(r, *checkRuns)
		}
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return err
		}
		for agent, o := range obs {
			if err := baseline.WriteObservation(filepath.Join(*dir, agent+".json"), o); err != nil {
				return err
			}
		}
		fmt.Fprintf(c.Stderr, "wrote %s to %s\n", ci.Count(len(obs), "observation file", "observation files"), *dir)
		return nil
	})
}

// exitError is a render error with its own exit code (others exit 3).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// noObservations says why the inputs gave no observation to write, and
// what gives one: exit 2 for inputs that hold no record run (a check's
// result given by mistake), 3 when the runs that count were inconclusive.
func noObservations(r *ci.Report, checkRuns bool) error {
	var records, checks int
	for _, run := range r.Runs {
		switch {
		case run.Expected:
		case run.Mode == baseline.ModeRecord:
			records++
		default:
			checks++
		}
	}
	if records == 0 && !checkRuns {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("the inputs hold %s and no record run, so there is no observation to write: "+
			"give the result of a record run (sysgate record --result FILE, the action's mode: record, or specs under SYSGATE_MODE=record); "+
			"to update baselines from what check runs found outside them, add --check-runs and then run report pr-body --write --keep-unseen",
			ci.Count(checks, "check or enforce run", "check or enforce runs"))}
	}
	return &exitError{code: ExitInconclusive, msg: "no conclusive run to take observations from: " +
		"an inconclusive run's observation is never written (sysgate report summary says why each run was inconclusive); run it again"}
}

// runReport parses the common flags, loads the inputs and renders them.
// The exit code is 0 once rendered, unless --exit-code asks for the
// verdict's (1 violation, 3 inconclusive): in CI the test step already
// failed, and the report step should still show its output.
func (c *Command) runReport(path string, args []string, flags func(*flag.FlagSet), render func(*ci.Report) error) int {
	fs := c.flagSet(path, "[FILE...]")
	var in reportInputs
	in.register(fs)
	if flags != nil {
		flags(fs)
	}
	exitCode := fs.Bool("exit-code", false, "exit 1 on a violation and 3 on an inconclusive run")
	var ciOut ciOutputs
	ciOut.register(fs, true)
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if code, ok := c.resolveCIOutputs(&ciOut); !ok {
		return code
	}
	r, code := c.loadReport(&in, fs.Args())
	if r == nil {
		return code
	}
	// A reader that stopped reading (| head) is no failure of the
	// report: the CI outputs and the exit code stay as if it had read all.
	if err := render(r); err != nil && !closedPipe(err) {
		code := ExitInconclusive
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		return c.errorf(code, "%s: %v", path, err)
	}
	if code, ok := c.writeCIOutputs(&ciOut, r); !ok {
		return code
	}
	if *exitCode {
		return verdictCode(r.Verdict())
	}
	return ExitOK
}

func init() {
	register("report pr-body", "merge shard observations, update the baselines (--write) and print the pull-request body", (*Command).runReportPRBody)
}

// archList is a repeatable --arch flag.
type archList []scmp.Arch

func (l *archList) String() string {
	names := make([]string, len(*l))
	for i, a := range *l {
		names[i] = a.String()
	}
	return strings.Join(names, ",")
}

func (l *archList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		a, err := scmp.ParseArch(name)
		if err != nil {
			return err
		}
		*l = append(*l, a)
	}
	return nil
}

func (c *Command) runReportPRBody(args []string) int {
	fs := c.flagSet("report pr-body", "OBSERVATION.json...")
	dir := fs.String("baselines", "", "the `DIR` of the baseline files to update (required)")
	write := fs.Bool("write", false, "rewrite the baseline files (default: only print what would change)")
	keep := fs.Bool("keep-unseen", false, "keep entries no run made instead of removing them as stale")
	runURL := fs.String("run-url", "", "the `URL` of the workflow run that recorded the observations")
	var reproduce listFlag
	fs.Var(&reproduce, "reproduce", "a `COMMAND` line the body shows for recording the baselines again (repeatable; e.g. your make target)")
	var arches archList
	fs.Var(&arches, "arch", "an `ARCH` the observations must cover, exactly (repeatable or comma-separated); default: update the observed arches, keep the others")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if code, ok := c.require(fs, "report pr-body", required{"--baselines DIR", *dir != ""}, required{"OBSERVATION.json", fs.NArg() > 0}); !ok {
		return code
	}
	obs, err := update.MergeObservations(fs.Args()...)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	root, err := repoRoot()
	if err != nil {
		return c.errorf(ExitInconclusive, "%v", err)
	}
	u, err := update.Plan(obs, update.Options{Dir: *dir, Arches: arches, Root: root, Write: *write, KeepUnseen: *keep})
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	abs, _ := filepath.Abs(*dir)
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = *dir
	}
	if err := u.WritePRBody(c.Stdout, update.PRBodyOptions{RunURL: *runURL, BaselineDir: filepath.ToSlash(rel), Reproduce: reproduce}); err != nil {
		return c.errorf(ExitInconclusive, "report pr-body: %v", err)
	}
	return ExitOK
}
