package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
)

// gateCommand runs the command input once under sysgate record, check
// or enforce, with the result and observation written to out; it returns
// sysgate's exit code.
func (a *actionStep) gateCommand(in gateInputs, out string, runFlags []string) (int, error) {
	argv, err := a.commandWords()
	if err != nil {
		return 0, err
	}
	timeout, agent := a.inputOr("timeout", "10m"), a.input("agent")
	result := filepath.Join(out, "result.json")
	if in.mode != "record" {
		flags := []string{"--timeout", timeout, "--result", result}
		if agent != "" {
			flags = append(flags, "--agent", agent)
		}
		for _, b := range in.baselines {
			flags = append(flags, "-b", b)
		}
		args := append(append(append([]string{a.self, in.mode}, flags...), runFlags...), "--")
		return exitCode(a.asRoot(append(args, argv...)...).Run()), nil
	}
	if len(in.baselines) == 0 {
		return 0, stepErrorf(ExitUsage, "baselines: record needs the file to write (the last one listed; earlier ones are what it extends)")
	}
	target := in.baselines[len(in.baselines)-1]
	if agent == "" {
		agent = baselineAgent(target)
	}
	if agent == "" {
		agent = filepath.Base(argv[0])
	}
	flags := []string{"--timeout", timeout, "--agent", agent, "--result", result}
	_, statErr := os.Stat(target)
	if in.incremental && statErr == nil {
		// The files allowed in the kernel, the new entries added to the
		// last (it keeps its extends).
		for _, b := range in.baselines {
			flags = append(flags, "--against", b)
		}
	} else {
		for _, b := range in.baselines[:len(in.baselines)-1] {
			flags = append(flags, "--extends", b)
		}
		if statErr == nil {
			flags = append(flags, "--merge")
		}
	}
	if n := a.input("record-runs"); n != "" {
		flags = append(flags, "--runs", n)
	}
	observations := filepath.Join(out, "observations")
	if err := a.asRoot("mkdir", "-p", observations).Run(); err != nil {
		return 0, stepErrorf(ExitInconclusive, "mkdir %s as root: %v", observations, err)
	}
	// Record writes the baseline into the job's checkout, which the
	// agent's user can write: --force says that is meant.
	args := append(append([]string{a.self, "record"}, flags...), runFlags...)
	args = append(append(args, "--force", "-o", target, "--observation", filepath.Join(observations, agent+".json"), "--"), argv...)
	if code := exitCode(a.asRoot(args...).Run()); code != ExitOK {
		return code, nil
	}
	_ = a.asRoot("chown", fmt.Sprintf("%d:%d", a.uid, a.gid), target).Run()
	a.say("recorded %s", target)
	return ExitOK, nil
}

// baselineAgent is the agent a baseline file names, empty without one.
func baselineAgent(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "agent:"); ok {
			return strings.TrimLeft(v, " ")
		}
	}
	return ""
}

// gatePackages compiles each package's tests as this user and runs the
// binaries as root (through sudo), their Ginkgo JSON reports written to
// out. It returns 1 when a test binary failed.
func (a *actionStep) gatePackages(in gateInputs, out string, readOnly []string) (int, error) {
	pkgs := action.Fields(a.input("packages"))
	a.setenv("SYSGATE_MODE", in.mode)
	// The baselines every spec's run binds read-only and re-hashes: one
	// package's agent must not widen a baseline a later spec checks with.
	// Absolute: each test binary runs in its package's directory.
	guarded := make([]string, len(in.baselines))
	for i, b := range in.baselines {
		guarded[i] = realpath(b)
	}
	a.setenv("SYSGATE_BASELINES", strings.Join(guarded, " "))
	a.setenv("SYSGATE_READ_ONLY", strings.Join(readOnly, "\n"))
	if in.mode == "record" {
		observations := filepath.Join(out, "observations")
		incremental := "0"
		if in.incremental {
			incremental = "1"
		}
		a.setenv("SYSGATE_OBSERVATIONS", observations)
		a.setenv("SYSGATE_INCREMENTAL", incremental)
		// gatetest.Run records until stable unless this says how often.
		a.setenv("SYSGATE_RECORD_RUNS", a.input("record-runs"))
		if err := a.asRoot("mkdir", "-p", observations).Run(); err != nil {
			return 0, stepErrorf(ExitInconclusive, "mkdir %s as root: %v", observations, err)
		}
	}
	if a.escalates() {
		a.setenv("SYSGATE_USER", fmt.Sprintf("%d:%d", a.uid, a.gid))
	}
	bins, err := a.tempDir()
	if err != nil {
		return 0, err
	}
	var list bytes.Buffer
	golist := exec.Command("go", append([]string{"list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{end}}"}, pkgs...)...)
	golist.Env, golist.Stdout, golist.Stderr = a.env, &list, a.c.Stderr
	if err := golist.Run(); err != nil {
		return 0, stepErrorf(ExitUsage, "packages: go list %s failed", strings.Join(pkgs, " "))
	}
	n, code := 0, ExitOK
	sc := bufio.NewScanner(&list)
	for sc.Scan() {
		path, dir, ok := strings.Cut(sc.Text(), "\t")
		if !ok || path == "" {
			continue
		}
		n++
		a.say("go test -c %s", path)
		bin := filepath.Join(bins, fmt.Sprintf("%d.test", n))
		build := exec.Command("go", "test", "-c", "-o", bin, path)
		build.Env, build.Stdout, build.Stderr = a.env, a.c.Stdout, a.c.Stderr
		if build.Run() != nil {
			return 0, stepErrorf(ExitUsage, "packages: %s does not compile", path)
		}
		run := a.asRoot(bin, "-test.timeout", a.inputOr("timeout", "10m"), "-test.v",
			"-ginkgo.json-report", filepath.Join(out, fmt.Sprintf("ginkgo-%d.json", n)), "-ginkgo.no-color", "-ginkgo.github-output")
		run.Dir = dir
		c := exitCode(run.Run())
		a.say("%s: exit %d", path, c)
		if c != ExitOK {
			code = ExitViolation
		}
	}
	if n == 0 {
		return 0, stepErrorf(ExitUsage, "packages: no tests in %s", strings.Join(pkgs, " "))
	}
	return code, nil
}

// reports renders what ran, read from the directory root wrote (the agent
// could write neither it nor the reports directory): the step summary,
// annotations, SARIF, JUnit, and the outputs verdict, violations and
// drift; then copies it to the reports directory for the upload. It
// returns the worse of the run's code and the reports' verdict: a spec
// that failed for another reason still fails the step.
func (a *actionStep) reports(out, reports string, code int) (int, error) {
	var inputs []string
	if _, err := os.Stat(filepath.Join(out, "result.json")); err == nil {
		inputs = append(inputs, "--result", filepath.Join(out, "result.json"))
	}
	ginkgo, _ := filepath.Glob(filepath.Join(out, "ginkgo-*.json"))
	for _, f := range ginkgo {
		inputs = append(inputs, "--ginkgo-json", f)
	}
	if len(inputs) == 0 {
		if err := copyTree(out, reports); err != nil {
			return 0, err
		}
		if hasFiles(reports, "*", reportsMarker) {
			if err := a.output("reports", reports); err != nil {
				return 0, err
			}
		}
		if code == ExitOK {
			code = ExitInconclusive
		}
		if err := errors.Join(a.output("verdict", "inconclusive"), a.output("violations", "0"), a.output("drift", "false")); err != nil {
			return 0, err
		}
		return 0, stepErrorf(code, "no result was written (exit %d): the log above says why", code)
	}
	var summary bytes.Buffer
	if c := a.sysgate(&summary, nil, append(append([]string{"report", "summary"}, inputs...), "--junit", filepath.Join(out, "junit.xml"), "--github-output")...); c != ExitOK {
		return 0, stepErrorf(c, "sysgate report summary failed (exit %d)", c)
	}
	if err := os.WriteFile(filepath.Join(out, "summary.md"), summary.Bytes(), 0o644); err != nil {
		return 0, stepErrorf(ExitInconclusive, "%v", err)
	}
	if err := a.summary(summary.String()); err != nil {
		return 0, err
	}
	a.sysgate(nil, nil, append([]string{"report", "annotations"}, inputs...)...)
	var sarif bytes.Buffer
	if c := a.sysgate(&sarif, nil, append([]string{"report", "sarif"}, inputs...)...); c != ExitOK {
		return 0, stepErrorf(c, "sysgate report sarif failed (exit %d)", c)
	}
	if err := os.WriteFile(filepath.Join(out, "sysgate.sarif"), sarif.Bytes(), 0o644); err != nil {
		return 0, stepErrorf(ExitInconclusive, "%v", err)
	}
	if c := a.sysgate(&bytes.Buffer{}, nil, append(append([]string{"report", "summary"}, inputs...), "--exit-code")...); c != ExitOK {
		code = c
	}
	if err := copyTree(out, reports); err != nil {
		return 0, err
	}
	return code, errors.Join(a.output("reports", reports), a.output("sarif", filepath.Join(reports, "sysgate.sarif")))
}
