package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// ruleCostRow is an unrelated loop's line: the loop (a process that is
// no part of any run, forked by this one) with no run active, while a
// `sysgate check --no-files` run is active, and while a `sysgate check`
// run that observes files holds its audit rules; ns per iteration, the
// fastest chunk.
type ruleCostRow struct {
	workload, unit           string
	none, noFiles, withFiles samples
}

const ruleCostHeader = "unrelated loop\tunit\tno run\tduring check --no-files\tduring check, files\tfiles/no run\tno files/no run\tfiles/no files\tfiles - no files ns\t"

// cells is the row for ruleCostHeader; ratios and the difference are
// paired.
func (r ruleCostRow) cells() string {
	return fmt.Sprintf("%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%.1f\t", r.workload, r.unit, r.none.median(), r.noFiles.median(), r.withFiles.median(),
		pairedRatio(r.withFiles, r.none), pairedRatio(r.noFiles, r.none), pairedRatio(r.withFiles, r.noFiles), pairedDiff(r.withFiles, r.noFiles))
}

// holderWorkload is the agent of the rule-cost runs: it says it has
// started, then waits for the end of its input, so the run (and, with
// files, its audit rules) lasts as long as the bench wants.
func holderWorkload(w workloads) workload {
	return workload{name: "holder: sh -c 'echo ready; read x || :'", command: []string{"/bin/sh", "-c", "echo ready; read x || :"}, dir: w.python.dir, env: w.python.env}
}

// ruleCost: what a files run's audit rules cost other processes. The
// loops run as plain processes (another login uid than the run's, so
// they match no rule) with no run active, then forked while a real
// `sysgate check` of a waiting agent is active, without files and with:
// a task's audit context is decided when it is forked, so each loop is
// started after the agent has said it is running. The three take turns
// at going first.
func ruleCost(ctx context.Context, cfg config, w workloads, holder workload, bases *baselines) error {
	if cfg.cli == "" {
		fmt.Printf("\nwhat a files run's audit rules cost other processes: skipped (no -sysgate binary)\n")
		return nil
	}
	base, err := bases.of(ctx, holder)
	if err != nil {
		return err
	}
	fmt.Printf("\nwhat a files run's audit rules cost other processes on the machine (median of %d; the loop forked by this process, no part of the run, while `sysgate check -b B -- %s` waits; ratios and the difference paired; check exits: the CLI's exit codes, all runs)\n",
		cfg.reps, holder.command[2])
	loops := []workload{w.getppid, w.openat}
	rows := make([]ruleCostRow, len(loops))
	for j, l := range loops {
		rows[j] = ruleCostRow{workload: l.name, unit: l.unit()}
	}
	exits := map[string]uint64{}
	for i := 0; i < cfg.reps; i++ {
		for k := 0; k < 3; k++ {
			// 0: no run; 1: a check without files; 2: one with.
			cond := (i + k) % 3
			var flags []string
			if cond == 1 {
				flags = []string{"--no-files"}
			}
			values, code, err := duringCheck(ctx, cfg.cli, cond > 0, flags, base, holder, loops)
			if err != nil {
				return err
			}
			if cond > 0 {
				exits[fmt.Sprintf("%s exit %d", checkName(flags), code)]++
			}
			for j := range rows {
				switch cond {
				case 0:
					rows[j].none = append(rows[j].none, values[j])
				case 1:
					rows[j].noFiles = append(rows[j].noFiles, values[j])
				default:
					rows[j].withFiles = append(rows[j].withFiles, values[j])
				}
			}
		}
	}
	tw := table()
	fmt.Fprintln(tw, ruleCostHeader)
	for _, r := range rows {
		fmt.Fprintln(tw, r.cells())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Printf("check exits: %s\n", countList(exits))
	return nil
}

func checkName(flags []string) string {
	if len(flags) == 0 {
		return "check"
	}
	return "check " + strings.Join(flags, " ")
}

// duringCheck runs loops one after another, each a plain process, and
// returns each one's ns per iteration. Without active no run is;
// with it `sysgate check FLAGS -b base -- holder` is, and the loops
// start once its agent has printed its first line; code is the check's
// exit code.
func duringCheck(ctx context.Context, cli string, active bool, flags []string, base string, holder workload, loops []workload) (values []float64, code int, err error) {
	loop := func() error {
		for _, l := range loops {
			m, err := l.runPlain(ctx)
			if err != nil {
				return err
			}
			values = append(values, m.perCall)
		}
		return nil
	}
	if !active {
		return values, 0, loop()
	}
	args := append(append([]string{"check"}, flags...), append([]string{"-b", base, "--"}, holder.command...)...)
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Dir, cmd.Env = holder.dir, holder.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	out := bufio.NewReader(stdout)
	line, rerr := out.ReadString('\n')
	if rerr == nil && strings.TrimSpace(line) != "ready" {
		rerr = fmt.Errorf("first line %q, want ready", line)
	}
	var lerr error
	if rerr == nil {
		lerr = loop()
	}
	_ = stdin.Close() // the agent's read returns: the run ends
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		code, werr = exit.ExitCode(), nil
	}
	if err := errors.Join(rerr, lerr, werr); err != nil {
		return nil, code, fmt.Errorf("sysgate %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return values, code, nil
}
