package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// execTarget is the most an observed exec may add over the same exec
// with programs off (issue 16), µs, paired. Reported, never a pass/fail.
const execTarget = 100.0

// execTargetMet says "yes" or "no" for the paired difference on - off
// (ns per exec) as printed in µs (one decimal), "-" without pairs.
func execTargetMet(on, off samples) string {
	if len(on) != len(off) || len(on) == 0 {
		return "-"
	}
	if math.Round(pairedDiff(on, off)/100) <= execTarget*10 {
		return "yes"
	}
	return "no"
}

// execRow is one backend and mode's line of the exec table: the exec
// loop's ns per exec bare, with programs observed and without
// (WithoutPrograms), each repeat's three runs paired.
type execRow struct {
	workload                  string
	backend                   verdict.Backend
	mode                      baseline.Mode
	execs                     int
	bare, on, off             samples // ns per exec, in the loop
	bareWall, onWall, offWall samples // ms, the whole run
	onCPU, offCPU             samples // ms of sysgate's own CPU (this process's), the whole run
	// seen: how many execs of the loop's program each run with programs
	// listed; unverified: execs sysgate could not confirm, all repeats.
	seen       samples
	unverified uint64
	// findings are the calls and programs outside the baseline (check),
	// all repeats, both ways.
	findings map[string]uint64
}

const execHeader = "workload\tbackend\tmode\tbare µs/exec\tprograms\tno programs\tprograms - bare\tno programs - bare\tprograms - no programs\ttarget\tmet\tprograms/no programs\twhole run: programs - no programs µs/exec\tsysgate CPU: programs - no programs µs/exec\texecs listed\tunverified (all reps)\toutside the baseline (all reps)\t"

// cells is the row for execHeader; the differences and the ratio are
// paired, in µs per exec.
func (r execRow) cells() string {
	us := func(ns float64) string { return strconv.FormatFloat(ns/1000, 'f', 1, 64) }
	// perExec is the paired difference of two whole-run figures (ms)
	// in µs per exec of the loop.
	perExec := func(a, b samples) string {
		if len(a) != len(b) || len(a) == 0 || r.execs <= 0 {
			return "-"
		}
		return strconv.FormatFloat(pairedDiff(a, b)*1000/float64(r.execs), 'f', 1, 64)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t<= %.0f µs\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t", r.workload, r.backend, r.mode,
		us(r.bare.median()), us(r.on.median()), us(r.off.median()),
		us(pairedDiff(r.on, r.bare)), us(pairedDiff(r.off, r.bare)), us(pairedDiff(r.on, r.off)), execTarget, execTargetMet(r.on, r.off),
		pairedRatio(r.on, r.off), perExec(r.onWall, r.offWall), perExec(r.onCPU, r.offCPU),
		strconv.FormatFloat(r.seen.median(), 'f', 0, 64), r.unverified, countList(r.findings))
}

// programsMicroRow is one backend's line of the microbenchmark in check
// mode with programs observed and without, and the instructions its
// syscall runs through in either filter.
type programsMicroRow struct {
	workload, unit    string
	backend           verdict.Backend
	bare, on, off     samples
	stepsOn, stepsOff int
	insnsOn, insnsOff int
	outside           map[string]uint64
}

const programsMicroHeader = "workload\tunit\tbackend\tbare\tcheck, programs\tno programs\tprograms/bare\tno programs/bare\tprograms/no programs\tfilter steps: programs\tno programs\tfilter insns: programs\tno programs\toutside the baseline (all reps)\t"

// cells is the row for programsMicroHeader; the ratios are paired.
func (r programsMicroRow) cells() string {
	return fmt.Sprintf("%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t", r.workload, r.unit, r.backend,
		r.bare.median(), r.on.median(), r.off.median(), pairedRatio(r.on, r.bare), pairedRatio(r.off, r.bare), pairedRatio(r.on, r.off),
		r.stepsOn, r.stepsOff, r.insnsOn, r.insnsOff, countList(r.outside))
}

// programsCost: what observing execs (harness's programs, on by default)
// costs. The exec loop bare, then on each backend in check mode (against
// its own recorded baseline, programs and all) and in record mode, each
// with programs and without, the two back to back in alternating order;
// then the microbenchmarks in check mode both ways, with the BPF steps of
// their syscall in each filter.
func programsCost(ctx context.Context, cfg config, execs workload, program string, micro []workload, bases *baselines) error {
	base, err := bases.of(ctx, execs)
	if err != nil {
		return err
	}
	if err := bases.programGate(execs, program); err != nil {
		return err
	}
	fmt.Printf("\n== programs: the cost of observing execs (median of %d; %s; programs - bare, no programs - bare, programs - no programs and programs/no programs: paired, the median of each repeat's own, in µs per exec of the loop; the two gated runs of a repeat back to back in alternating order; whole run: the same from harness.Run's wall time, start-up and end included, per exec of the loop; execs listed: %s's count in Result.Programs; target: issue 16)\n",
		cfg.reps, execs.name, program)
	var rows []*execRow
	for _, b := range cfg.backends {
		for _, mode := range []baseline.Mode{baseline.ModeCheck, baseline.ModeRecord} {
			rows = append(rows, &execRow{workload: execs.name, backend: b, mode: mode, execs: cfg.execs, findings: map[string]uint64{}})
		}
	}
	for i := 0; i < cfg.reps; i++ {
		m, err := execs.runPlain(ctx)
		if err != nil {
			return err
		}
		for _, row := range rows {
			row.bare, row.bareWall = append(row.bare, m.perCall), append(row.bareWall, ms(m.wall))
			err := backToBack(i, func(on bool) error {
				g, r, cpu, err := runPrograms(ctx, execs, row.backend, row.mode, base, on)
				if err != nil {
					return err
				}
				addFindings(row.findings, r)
				if !on {
					row.off, row.offWall, row.offCPU = append(row.off, g.perCall), append(row.offWall, ms(g.wall)), append(row.offCPU, ms(cpu))
					return nil
				}
				row.on, row.onWall, row.onCPU = append(row.on, g.perCall), append(row.onWall, ms(g.wall)), append(row.onCPU, ms(cpu))
				row.seen = append(row.seen, float64(programCount(r, program)))
				row.unverified += r.UnverifiedExecs
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	tw := table()
	fmt.Fprintln(tw, execHeader)
	for _, r := range rows {
		fmt.Fprintln(tw, r.cells())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return programsMicro(ctx, cfg, micro, bases)
}

// programsMicro: the microbenchmarks in check mode with programs and
// without (harness.Run compiles the exec rule into the filter only with
// programs), paired with the bare run of the same repeat. A
// microbenchmark's first argument is the syscall its loop makes.
func programsMicro(ctx context.Context, cfg config, ws []workload, bases *baselines) error {
	fmt.Printf("\nthe syscall microbenchmarks in check mode with programs and without (median of %d; ratios paired; filter steps: BPF instructions the loop's syscall runs through in the filter harness.Run compiles, hand-off prefix aside; insns: the filter's length)\n", cfg.reps)
	tw := table()
	fmt.Fprintln(tw, programsMicroHeader)
	for _, w := range ws {
		base, err := bases.of(ctx, w)
		if err != nil {
			return err
		}
		rows := make([]programsMicroRow, len(cfg.backends))
		for j, b := range cfg.backends {
			row := &rows[j]
			*row = programsMicroRow{workload: w.name, unit: w.unit(), backend: b, outside: map[string]uint64{}}
			notify := b == verdict.BackendNotify
			if row.stepsOn, row.insnsOn, err = compiledSteps(base, notify, true, w.command[1]); err != nil {
				return err
			}
			if row.stepsOff, row.insnsOff, err = compiledSteps(base, notify, false, w.command[1]); err != nil {
				return err
			}
		}
		for i := 0; i < cfg.reps; i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			for j := range rows {
				row := &rows[j]
				row.bare = append(row.bare, m.perCall)
				err := backToBack(i, func(on bool) error {
					g, r, _, err := runPrograms(ctx, w, row.backend, baseline.ModeCheck, base, on)
					if err != nil {
						return err
					}
					addFindings(row.outside, r)
					if on {
						row.on = append(row.on, g.perCall)
					} else {
						row.off = append(row.off, g.perCall)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
		}
		for _, r := range rows {
			fmt.Fprintln(tw, r.cells())
		}
	}
	return tw.Flush()
}

// runPrograms runs w on backend b in mode (check: against base) with
// programs observed or not, as runMeasured does. A run that listed
// programs when told not to is an error: the row would not measure what
// it is labelled with.
func runPrograms(ctx context.Context, w workload, b verdict.Backend, mode baseline.Mode, base string, on bool) (m measurement, r *verdict.Result, cpu time.Duration, err error) {
	var opts []harness.Option
	if !on {
		opts = append(opts, harness.WithoutPrograms())
	}
	m, r, cpu, err = runMeasured(ctx, w, b, mode, base, fmt.Sprintf("programs: %v", on), opts...)
	if err == nil && !on && len(r.Programs) > 0 {
		err = fmt.Errorf("%s %s on %s without programs: %d programs listed", mode, w.name, b, len(r.Programs))
	}
	return m, r, cpu, err
}

// runMeasured runs w on backend b in mode (check and enforce: against
// base) with opts; cpu is what this process (sysgate: the listener, the
// watchers, the audit reader) spent meanwhile, the agent's processes not
// counted. An inconclusive run is an error, labelled with what the row
// varies.
func runMeasured(ctx context.Context, w workload, b verdict.Backend, mode baseline.Mode, base, label string, extra ...harness.Option) (m measurement, r *verdict.Result, cpu time.Duration, err error) {
	opts := []harness.Option{harness.WithMode(mode)}
	if mode != baseline.ModeRecord {
		opts = append(opts, harness.WithBaselines(base))
	}
	before, err := selfCPU()
	if err != nil {
		return m, nil, 0, err
	}
	m, r, err = w.runOn(ctx, b, append(opts, extra...)...)
	if err != nil {
		return m, r, 0, fmt.Errorf("%s %s on %s (%s): %w", mode, w.name, b, label, err)
	}
	after, err := selfCPU()
	if err != nil {
		return m, r, 0, err
	}
	if !r.Conclusive() {
		return m, r, 0, fmt.Errorf("%s %s on %s (%s): inconclusive: %s", mode, w.name, b, label, r.Inconclusive)
	}
	return m, r, after - before, nil
}

// selfCPU is this process's user+sys time so far, every thread; not its
// children's.
func selfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, os.NewSyscallError("getrusage", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// addFindings counts what r found outside its baseline: calls by
// syscall, programs as "program PATH".
func addFindings(into map[string]uint64, r *verdict.Result) {
	for _, v := range r.Violations {
		into[v.Syscall] += v.Count
	}
	for _, v := range r.ProgramViolations {
		into["program "+v.Path] += v.Count
	}
}

// programCount is how many execs of program (its resolved path) r
// listed.
func programCount(r *verdict.Result, program string) uint64 {
	for _, p := range r.Programs {
		if p.Path == program {
			return p.Count
		}
	}
	return 0
}

// programGate says whether wl's recorded baseline gates programs, and
// checks that it allows program if it does: a check run that found the
// loop's program outside its baseline would not be a clean run. A
// baseline without a programs section (record writes none yet) is
// measured as it is: its check runs list the programs, gate none.
func (b *baselines) programGate(wl workload, program string) error {
	path, p, err := b.load(wl)
	if err != nil {
		return err
	}
	switch {
	case !p.GatesPrograms():
		fmt.Printf("%s: the baseline %s has no programs section: check lists the programs run, gates none\n", wl.name, filepath.Base(path))
	case !p.AllowsProgram(program):
		return fmt.Errorf("baseline %s of %s gates programs and does not allow %s", path, wl.name, program)
	default:
		fmt.Printf("%s: the baseline %s gates programs and allows %s\n", wl.name, filepath.Base(path), program)
	}
	return nil
}
