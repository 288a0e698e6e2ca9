package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
)

// gateInputs are the gate's inputs, checked.
type gateInputs struct {
	mode, reports, envFile        string
	incremental, strict, allowBad bool
	upload                        bool
	baselines                     []string
	extraArgs, passEnv            []string
}

func (a *actionStep) gateInputs() (gateInputs, error) {
	in := gateInputs{mode: a.inputOr("mode", "check"), reports: a.inputOr("reports", "sysgate-reports"), envFile: a.input("env-file")}
	if err := action.Mode(in.mode); err != nil {
		return in, err
	}
	if err := action.Backend(a.inputOr("backend", "auto")); err != nil {
		return in, err
	}
	var err error
	for _, b := range []struct {
		name, def string
		to        *bool
	}{{"incremental", "false", &in.incremental}, {"strict", "true", &in.strict},
		{"allow-agent-failure", "false", &in.allowBad}, {"upload", "true", &in.upload}} {
		if *b.to, err = action.Bool(b.name, a.inputOr(b.name, b.def)); err != nil {
			return in, err
		}
	}
	if in.envFile != "" {
		if fi, err := os.Stat(in.envFile); err != nil || !fi.Mode().IsRegular() {
			return in, stepErrorf(ExitUsage, "env-file: %s is not a file", in.envFile)
		}
	}
	if err := action.RecordRuns(a.input("record-runs")); err != nil {
		return in, err
	}
	if in.extraArgs, err = action.Args(a.input("args")); err != nil {
		return in, err
	}
	if in.passEnv, err = a.passEnv(); err != nil {
		return in, err
	}
	command, packages := a.input("command"), a.input("packages")
	if command != "" && packages != "" {
		return in, stepErrorf(ExitUsage, "give command or packages, not both")
	}
	if command == "" && packages == "" {
		return in, stepErrorf(ExitUsage, "give command (the agent's command line) or packages (Go packages with gate specs)")
	}
	in.baselines = action.Fields(a.input("baselines"))
	if command != "" && in.mode != "record" && len(in.baselines) == 0 {
		return in, stepErrorf(ExitUsage, "baselines: %s needs the agent's baseline files (record one first: mode: record)", in.mode)
	}
	return in, nil
}

// artifactName is the upload's name: one per matrix leg.
func (a *actionStep) artifactName() string {
	return action.ArtifactName(a.getenv("GITHUB_JOB"), a.getenv("RUNNER_OS"), a.getenv("RUNNER_ARCH"), action.ArtifactInputs{
		Command: a.input("command"), Packages: a.input("packages"), Baselines: a.input("baselines"), Agent: a.input("agent"),
		Mode: a.input("mode"), Backend: a.input("backend"), Args: a.input("args"), Dir: a.cwd})
}

// gate is the gate step: validate the baselines, run the command or the
// Go packages, write the reports and outputs, and fail with sysgate's own
// exit code: no later step reads anything to decide the verdict. In
// record mode it also leaves the changed baseline files and a patch of
// them (action_record.go).
func (a *actionStep) gate() error {
	a.inGate = true
	if err := a.output("artifact-name", a.artifactName()); err != nil {
		return err
	}
	in, err := a.gateInputs()
	if err != nil {
		return err
	}
	a.setenv("SYSGATE_BACKEND", a.inputOr("backend", "auto"))
	a.setenv("NO_COLOR", "1")
	reports, err := reportsDir(in.reports)
	if err != nil {
		return err
	}
	// Run outputs go to a directory only root can write, in sticky /tmp,
	// when the agent runs as another user: it cannot plant or swap them.
	var dir strings.Builder
	mk := a.asRoot("mktemp", "-d", "/tmp/sysgate-action.XXXXXX")
	mk.Stdout = &dir
	if err := mk.Run(); err != nil {
		return stepErrorf(ExitInconclusive, "mktemp -d as root: %v", err)
	}
	out := strings.TrimSpace(dir.String())
	a.rootOut = out
	readOnly := a.readOnlyPaths(reports)
	var runFlags []string
	for _, p := range readOnly {
		runFlags = append(runFlags, "--read-only", p)
	}
	runFlags = append(runFlags, in.extraArgs...)
	for _, p := range in.passEnv {
		runFlags = append(runFlags, "--pass-env", p)
	}
	if in.envFile != "" {
		runFlags = append(runFlags, "--env-file", realpath(in.envFile))
	}
	if in.allowBad {
		runFlags = append(runFlags, "--allow-agent-failure")
	}
	sel, err := a.selection(in.extraArgs)
	if err != nil {
		return err
	}
	if err := a.validateBaselines(in, sel); err != nil {
		return err
	}
	// Before the agent runs: the patch record leaves is against these.
	var before map[string][]byte
	if in.mode == "record" {
		before = snapshotBaselines(in.baselines)
	}
	var code int
	if a.input("command") != "" {
		code, err = a.gateCommand(in, out, runFlags)
	} else {
		code, err = a.gatePackages(in, out, readOnly)
	}
	if err != nil {
		return err
	}
	_ = a.asRoot("chown", "-R", fmt.Sprintf("%d:%d", a.uid, a.gid), out).Run()
	if code, err = a.reports(out, reports, code); err != nil {
		return err
	}
	if in.mode == "record" {
		if a.input("packages") != "" && hasFiles(filepath.Join(reports, "observations"), "*.json", "") {
			if err := a.recordPackagesBaselines(reports, in.baselines); err != nil {
				return err
			}
		}
		if err := a.writeBaselineUpdate(reports, code, in, before); err != nil {
			return err
		}
	}
	if err := a.output("code", fmt.Sprint(code)); err != nil {
		return err
	}
	a.say("exit %d", code)
	if code == ExitOK {
		a.say("clean")
	}
	return verdictError(code)
}

// verdictError fails the gate step with sysgate's exit code and a
// one-line reason; nil for clean.
func verdictError(code int) error {
	switch code {
	case ExitOK:
		return nil
	case ExitViolation:
		return stepErrorf(code, "violation: the agent made syscalls or ran programs outside its baselines (the summary and annotations name them and the lines to add)")
	case ExitUsage:
		return stepErrorf(code, "bad input: the log above names the file or input")
	case ExitInconclusive:
		return stepErrorf(code, "inconclusive: sysgate could not see everything the agent did; the summary says why (never a pass)")
	case ExitAgentFailed:
		return stepErrorf(code, "the agent itself failed (non-zero exit or a signal): the log has its output (allow-agent-failure: true passes a clean run anyway)")
	}
	return stepErrorf(code, "the gate failed with exit %d", code)
}

// realpath is path absolute with its links resolved, as far as it exists.
func realpath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}
