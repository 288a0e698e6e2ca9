package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The CLI's start-up targets (issue 11): `sysgate version`'s median, and
// `sysgate check` of /bin/true over the bare /bin/true run before it.
const (
	versionTargetMS   = 2.5
	checkTrueTargetMS = 4
)

// target is what a start-up row is held to; the zero value holds it to
// nothing. Reported, never a pass/fail: timings decide nothing here.
type target struct {
	overBare bool    // false: the row's median; true: its paired difference over the bare command
	limitMS  float64 // 0: no target
}

func (t target) String() string {
	switch {
	case t.limitMS == 0:
		return "-"
	case t.overBare:
		return fmt.Sprintf("<= %g ms over bare", t.limitMS)
	default:
		return fmt.Sprintf("median <= %g ms", t.limitMS)
	}
}

// met says "yes" or "no", or "-" without a target or the samples to judge.
func (t target) met(r cliRow) string {
	if t.limitMS == 0 || len(r.runs) == 0 || (t.overBare && len(r.bare) != len(r.runs)) {
		return "-"
	}
	v := r.runs.median()
	if t.overBare {
		v = pairedDiff(r.runs, r.bare)
	}
	if v <= t.limitMS {
		return "yes"
	}
	return "no"
}

// cliRow is one command of the CLI start-up table: its wall times and,
// when vs is set, those of the bare command launched right before each
// of its launches.
type cliRow struct {
	name   string
	runs   samples
	vs     string
	bare   samples
	target target
}

const cliHeader = "command\tmedian\tmin\tmax\tpaired with\tpaired diff\tpaired ratio\ttarget\tmet\t"

// cells is the row for cliHeader, times in ms.
func (r cliRow) cells() string {
	vs, diff, rat := "-", "-", "-"
	if r.vs != "" {
		vs, rat = r.vs, pairedRatio(r.runs, r.bare)
		if len(r.runs) == len(r.bare) && len(r.runs) > 0 {
			diff = fmt.Sprintf("%+.3f", pairedDiff(r.runs, r.bare))
		}
	}
	return fmt.Sprintf("%s\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\t", r.name, r.runs.median(), r.runs.min(), r.runs.max(),
		vs, diff, rat, r.target, r.target.met(r))
}

// cliCommand is a whole process launched from outside.
type cliCommand struct {
	name string
	argv []string
	env  []string
}

// cliStartup times the whole sysgate process, from the fork to the reap,
// each command interleaved with the bare one it is paired with:
// `sysgate version` against a Go hello-world (the floor of any Go
// program), and `sysgate check -b B -- CMD` against CMD for /bin/true and
// python3 -c pass (B recorded for CMD, so the check is clean).
func cliStartup(ctx context.Context, cfg config, dir string, w workloads, bases *baselines) error {
	if cfg.cli == "" {
		fmt.Printf("\n== CLI start-up: skipped (no -sysgate binary)\n")
		return nil
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	hello := filepath.Join(dir, "hello")
	build := exec.CommandContext(ctx, "go", "build", "-o", hello, filepath.Join(root, "tools", "bench", "testdata", "hello.go"))
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build hello.go: %v: %s", err, out)
	}
	env := w.trueCmd.env
	check := func(wl workload) (cliCommand, error) {
		base, err := bases.of(ctx, wl)
		if err != nil {
			return cliCommand{}, err
		}
		return cliCommand{"sysgate check -b B -- " + wl.name, append([]string{cfg.cli, "check", "-b", base, "--"}, wl.command...), env}, nil
	}
	checkTrue, err := check(w.trueCmd)
	if err != nil {
		return err
	}
	checkPython, err := check(w.pythonPass)
	if err != nil {
		return err
	}
	// Pairs, each bare command launched right before its partner.
	pairs := []struct {
		bare, cmd cliCommand
		target    target
	}{
		{cliCommand{"go hello-world", []string{hello}, env}, cliCommand{"sysgate version", []string{cfg.cli, "version"}, env},
			target{limitMS: versionTargetMS}},
		{cliCommand{w.trueCmd.name, w.trueCmd.command, env}, checkTrue, target{overBare: true, limitMS: checkTrueTargetMS}},
		{cliCommand{w.pythonPass.name, w.pythonPass.command, env}, checkPython, target{}},
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	rows := make([]cliRow, 2*len(pairs))
	for i, p := range pairs {
		rows[2*i] = cliRow{name: p.bare.name}
		rows[2*i+1] = cliRow{name: p.cmd.name, vs: p.bare.name, target: p.target}
		// One launch of each, untimed: page cache, and a failure with
		// its output rather than a bare exit code.
		for _, c := range []cliCommand{p.bare, p.cmd} {
			warm := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
			warm.Env = c.env
			if out, err := warm.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v: %s", c.name, err, out)
			}
		}
	}
	fmt.Printf("\n== CLI start-up, whole process from fork to reap (ms over %d launches; paired: median of each launch against the bare one right before it)\n", cfg.launches)
	for range cfg.launches {
		for i, p := range pairs {
			b, err := launch(p.bare, devNull)
			if err != nil {
				return err
			}
			c, err := launch(p.cmd, devNull)
			if err != nil {
				return err
			}
			rows[2*i].runs = append(rows[2*i].runs, b)
			rows[2*i+1].runs = append(rows[2*i+1].runs, c)
			rows[2*i+1].bare = append(rows[2*i+1].bare, b)
		}
	}
	tw := table()
	fmt.Fprintln(tw, cliHeader)
	for _, r := range rows {
		fmt.Fprintln(tw, r.cells())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := phaseBreakdown(ctx, checkTrue, cfg.launches); err != nil {
		return err
	}
	// The notify backend has no audit phase and a filter without a rule
	// per syscall: its breakdown differs, so it gets a table of its own.
	notify := cliCommand{"sysgate check --backend notify -b B -- " + w.trueCmd.name,
		append([]string{cfg.cli, "check", "--backend", "notify"}, checkTrue.argv[2:]...), env}
	if err := phaseBreakdown(ctx, notify, cfg.launches); err != nil {
		fmt.Printf("(no notify breakdown: %v)\n", err)
	}
	return nil
}

// launch starts c with its standard streams on /dev/null and waits for it:
// the wall time in ms from just before the fork to just after the reap.
// Not os/exec: its pipes and goroutines would be timed too.
func launch(c cliCommand, devNull *os.File) (float64, error) {
	attr := &os.ProcAttr{Env: c.env, Files: []*os.File{devNull, devNull, devNull}}
	start := time.Now()
	p, err := os.StartProcess(c.argv[0], c.argv, attr)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.name, err)
	}
	ps, err := p.Wait()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.name, err)
	}
	if !ps.Success() {
		return 0, fmt.Errorf("%s: %s", c.name, ps)
	}
	return ms(d), nil
}
