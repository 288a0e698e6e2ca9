package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sysgate/sysgate/auditlog/auditctl"
)

// floorTarget is the most record mode may take over the drain-only reader
// (issue 19). Reported, never a pass/fail.
const floorTarget ratioTarget = 1.20

// drainRun is one run of the drain-only reader (tools/bench/testdata/drain.c)
// over a command under record mode's log-everything filter.
type drainRun struct {
	wall, cpu        time.Duration // cpu: the reader's and the command's
	records, overrun int64
}

// runDrain runs the drain-only reader over w's command loaded with the
// log-all filter, with the audit tuning the harness's runs use held.
func runDrain(ctx context.Context, drain string, w workload) (drainRun, error) {
	release, err := auditctl.AcquireTuning()
	if err != nil {
		return drainRun{}, err
	}
	defer release()
	args := append(append([]string{}, loaderPrefix(logAll, "-")...), w.command...)
	cmd := exec.CommandContext(ctx, drain, args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil && (cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1) {
		return drainRun{}, fmt.Errorf("drain %s: %w: %s", w.name, err, stderr.String())
	}
	f := strings.Fields(stdout.String())
	if len(f) != 3 {
		return drainRun{}, fmt.Errorf("drain %s: output %q", w.name, stdout.String())
	}
	var v [3]int64
	for i := range f {
		if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return drainRun{}, fmt.Errorf("drain %s: output %q", w.name, stdout.String())
		}
	}
	return drainRun{wall: time.Duration(v[0]), cpu: cpuOf(cmd.ProcessState), records: v[1], overrun: v[2]}, nil
}

// recordFloor: `sysgate record` (the CLI, audit backend) against the
// drain-only reader on the same command and filter, interleaved per rep.
// The drain reader is the audit path's physical limit: the kernel formats
// every record and kauditd copies it out, the reader only counts. Both
// run as processes of their own while this one holds no audit socket:
// every multicast reader gets a copy of every record, so a reader left
// open would slow both sides.
func recordFloor(ctx context.Context, cfg config, dir, drain string, w workload) error {
	fmt.Printf("\n== sysgate record at the audit path's floor: %s (median of %d wall times; drain-only: a C reader that only counts type-1326 messages, under the same log-everything filter; paired: median of each repeat's record/drain)\n", w.name, cfg.reps)
	if cfg.cli == "" {
		fmt.Println("skipped: no sysgate CLI (-sysgate)")
		return nil
	}
	if n := auditListeners(); n != 0 {
		fmt.Printf("note: %d other audit multicast readers are open: each gets a copy of every record, on both sides\n", n)
	}
	out := filepath.Join(dir, "floor.yaml")
	var floor, rec, bare, floorCPU, recCPU samples
	var events, records int64
	lossless := true
	for i := 0; i < cfg.reps; i++ {
		m, err := w.runPlain(ctx)
		if err != nil {
			return err
		}
		bare = append(bare, ms(m.wall))
		d, err := runDrain(ctx, drain, w)
		if err != nil {
			return err
		}
		lossless = lossless && d.overrun == 0
		floor, floorCPU, records = append(floor, ms(d.wall)), append(floorCPU, ms(d.cpu)), d.records
		_ = os.Remove(out)
		rm, cpu, n, err := cliRecord(ctx, cfg.cli, out, w)
		if err != nil {
			return err
		}
		rec, recCPU, events = append(rec, ms(rm)), append(recCPU, ms(cpu)), n
	}
	tw := table()
	fmt.Fprintln(tw, "workload\tbare ms\tdrain-only ms\trecords\tsysgate record ms\tevents\tlossless\trecord/drain\tpaired\ttarget\tmet\tCPU ms: drain-only\trecord\tpaired\t")
	fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%d\t%.1f\t%d\t%v\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%s\t\n", w.name, bare.median(), floor.median(), records, rec.median(), events, lossless,
		ratio(rec.median(), floor.median()), pairedRatio(rec, floor), floorTarget, floorTarget.met(rec, floor),
		floorCPU.median(), recCPU.median(), pairedRatio(recCPU, floorCPU))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Println("(CPU: user+sys of the reader and the command together; the command's kernel time formatting each record is most of it)")
	return nil
}

// cliRecord runs `sysgate record -o out -- w.command` and returns its wall
// time, CPU time (its own and the agent's) and the logged syscalls it
// reports. An inconclusive run (loss) is an error: its time would not be
// a record's.
func cliRecord(ctx context.Context, cli, out string, w workload) (time.Duration, time.Duration, int64, error) {
	args := append([]string{"record", "--runs", "1", "--agent", "bench", "-o", out, "--"}, w.command...)
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("sysgate record %s: %w: %s", w.name, err, stderr.String())
	}
	count, ok := loggedSyscalls(stderr.String())
	if !ok {
		return 0, 0, 0, fmt.Errorf("sysgate record %s: no event count in %q", w.name, stderr.String())
	}
	n, err := strconv.ParseInt(count, 10, 64)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("sysgate record %s: event count in %q", w.name, stderr.String())
	}
	return wall, cpuOf(cmd.ProcessState), n, nil
}

// loggedSyscalls is the count in the CLI's "N logged syscalls from ..."
// line, as printed.
func loggedSyscalls(output string) (string, bool) {
	i := strings.Index(output, " logged syscalls")
	if i <= 0 {
		return "", false
	}
	f := strings.Fields(output[:i])
	return f[len(f)-1], true
}
