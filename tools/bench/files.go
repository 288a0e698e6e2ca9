package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// onOffTarget is what observing files (issue 35) or the network (issue
// 36) may cost a realistic session over the same run without: reported,
// never judged.
const onOffTarget ratioTarget = 1.10

// filesRow is one workload's line on one backend in one mode: its runs
// with files observed and without (WithoutFiles), back to back in each
// repeat, and the bare run of the repeat.
type filesRow struct {
	workload      string
	backend       verdict.Backend
	mode          baseline.Mode
	bare, on, off samples // wall ms
	// onCPU and offCPU are sysgate's own CPU (this process: the audit
	// reader and reassembly, or the listener and the file proxy) per run,
	// ms.
	onCPU, offCPU samples
	// listed is the (path, access) pairs the files-on run put in its
	// observation: all it touched in record, those outside in check.
	listed   samples
	findings map[string]uint64 // outside the baseline, all repeats, both ways
}

const filesHeader = "workload\tbackend\tmode\tbare ms\tfiles ms\tno files ms\tfiles/no files\ttarget\tfiles/bare\tno files/bare\tfiles - no files ms\tsysgate CPU: files ms\tno files ms\tfiles listed\toutside the baseline (all reps)\t"

// cells is the row for filesHeader; ratios and the difference are
// paired. The target is printed beside the ratio, never judged.
func (r filesRow) cells() string {
	return fmt.Sprintf("%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.0f\t%s\t", r.workload, r.backend, r.mode,
		r.bare.median(), r.on.median(), r.off.median(), pairedRatio(r.on, r.off), onOffTarget,
		pairedRatio(r.on, r.bare), pairedRatio(r.off, r.bare), pairedDiff(r.on, r.off),
		r.onCPU.median(), r.offCPU.median(), r.listed.median(), countList(r.findings))
}

// filesMicroRow is a microbenchmark's line on one backend in check mode,
// files observed and not: the loop's own ns per iteration (its fastest
// chunk), the whole run's wall time, and sysgate's CPU per iteration.
type filesMicroRow struct {
	workload, unit  string
	backend         verdict.Backend
	iterations      float64
	bare, on, off   samples // ns per iteration
	onWall, offWall samples // ms
	onCPU, offCPU   samples // sysgate's CPU per run, ms
	findings        map[string]uint64
}

const filesMicroHeader = "workload\tunit\tbackend\truns each way\tbare\tcheck, files\tno files\tfiles/no files\tfiles/bare\tno files/bare\tloop: files - no files ns\twhole run: files - no files ns/iter\tsysgate CPU: files ns/iter\tno files ns/iter\toutside the baseline (all reps)\t"

// cells is the row for filesMicroHeader; ratios and differences are
// paired.
func (r filesMicroRow) cells() string {
	return fmt.Sprintf("%s\t%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t", r.workload, r.unit, r.backend, len(r.on),
		r.bare.median(), r.on.median(), r.off.median(), pairedRatio(r.on, r.off), pairedRatio(r.on, r.bare), pairedRatio(r.off, r.bare),
		pairedDiff(r.on, r.off), perIteration(pairedDiff(r.onWall, r.offWall), r.iterations, len(r.onWall) == len(r.offWall)),
		perIteration(r.onCPU.median(), r.iterations, true), perIteration(r.offCPU.median(), r.iterations, true), countList(r.findings))
}

// filesMicroOnce is the count from which a loop of file calls runs once
// each way: 100k opens with files observed take 15-45 s a run here (each
// a record to reassemble, or a call the proxy performs), and one run's
// ns per iteration is the fastest of its 20 chunks already.
const filesMicroOnce = 10_000

// microReps is how many times microOnOff runs w each way.
func microReps(cfg config, w workload) int {
	if w.per == "pair" && iterations(w) >= filesMicroOnce {
		return 1
	}
	return cfg.reps
}

// perIteration is a whole-run figure in ms as ns per iteration of a loop
// of n; "-" without iterations or when the figure does not pair.
func perIteration(msValue, n float64, ok bool) string {
	if !ok || n <= 0 {
		return "-"
	}
	return strconv.FormatFloat(msValue*1e6/n, 'f', 1, 64)
}

// iterations is a loop workload's count: its command's last argument.
func iterations(w workload) float64 {
	n, err := strconv.Atoi(w.command[len(w.command)-1])
	if err != nil {
		return 0
	}
	return float64(n)
}

// filesCost: what observing files (on by default) costs. The Python
// agent and the MCP server in check and record mode on each backend,
// files on and off back to back; the openat and getppid loops in check
// mode the same way; then what a run's audit rules cost a process that
// is no part of it (ruleCost).
func filesCost(ctx context.Context, cfg config, w workloads, bases *baselines) error {
	// A fifth of the MCP server's calls: its files run on the audit
	// backend takes about twice its no-files run, and the section has
	// eight runs of it per repeat.
	mcp := w.mcp
	mcp.mcpCalls = max(1, w.mcp.mcpCalls/5)
	mcp.name = fmt.Sprintf("mcp-filesystem %d calls", mcp.mcpCalls)
	sessions, micro := []workload{w.python, mcp}, []workload{w.openat, w.getppid}
	for _, wl := range append(append([]workload{}, sessions...), micro...) {
		if _, err := bases.of(ctx, wl); err != nil {
			return err
		}
	}
	holder := holderWorkload(w)
	if cfg.cli != "" {
		if _, err := bases.of(ctx, holder); err != nil {
			return err
		}
	}
	fmt.Printf("\n== files: the cost of observing them (issue 35; median of %d; files/no files, files/bare, no files/bare and files - no files: paired, the median of each repeat's own; the files and no-files runs of a repeat back to back in alternating order; sysgate CPU: this process's user+sys during the run; files listed: (path, access) pairs in the files run's observation, all of them in record, those outside the baseline in check)\n", cfg.reps)
	if err := sessionsOnOff(ctx, cfg, filesOnOff, sessions, bases); err != nil {
		return err
	}
	fmt.Printf("\nthe loops in check mode with files observed and without (median of the runs each way; a loop of %d file calls or more runs once each way; ratios and differences paired; loop: the fastest chunk's ns per iteration; whole run: harness.Run's wall time per iteration; sysgate CPU: this process's user+sys during the run per iteration)\n", filesMicroOnce)
	if err := microOnOff(ctx, cfg, filesOnOff, micro, bases); err != nil {
		return err
	}
	return ruleCost(ctx, cfg, w, holder, bases)
}

// onOff is an observation a section measures switched on and off: files
// (WithoutFiles) or the network (WithoutNetwork).
type onOff struct {
	name string // "files", "network"
	// header and microHeader head the tables of filesRow and
	// filesMicroRow cells.
	header, microHeader string
	// without is the option that switches the observation off; observed
	// says whether a run's result had it on.
	without  func() harness.Option
	observed func(r *verdict.Result) bool
	// findings adds what r found outside its baseline to into; listed is
	// how many entries of the observation's kind r's observation has.
	findings func(into map[string]uint64, r *verdict.Result)
	listed   func(r *verdict.Result) int
}

var filesOnOff = onOff{name: "files", header: filesHeader, microHeader: filesMicroHeader, without: harness.WithoutFiles,
	observed: func(r *verdict.Result) bool { return r.FilesObserved }, findings: addFileFindings, listed: filesListed}

// sessionsOnOff: the realistic sessions, each mode and backend, the
// observation on and off.
func sessionsOnOff(ctx context.Context, cfg config, obs onOff, ws []workload, bases *baselines) error {
	var rows []*filesRow
	for _, w := range ws {
		base, err := bases.of(ctx, w)
		if err != nil {
			return err
		}
		var mine []*filesRow
		for _, b := range cfg.backends {
			for _, mode := range []baseline.Mode{baseline.ModeCheck, baseline.ModeRecord} {
				mine = append(mine, &filesRow{workload: w.name, backend: b, mode: mode, findings: map[string]uint64{}})
			}
		}
		for i := 0; i < cfg.reps; i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			for _, row := range mine {
				row.bare = append(row.bare, ms(m.wall))
				err := backToBack(i, func(on bool) error {
					g, r, cpu, err := obs.run(ctx, w, row.backend, row.mode, base, on)
					if err != nil {
						return err
					}
					obs.findings(row.findings, r)
					if !on {
						row.off, row.offCPU = append(row.off, ms(g.wall)), append(row.offCPU, ms(cpu))
						return nil
					}
					row.on, row.onCPU = append(row.on, ms(g.wall)), append(row.onCPU, ms(cpu))
					row.listed = append(row.listed, float64(obs.listed(r)))
					return nil
				})
				if err != nil {
					return err
				}
			}
		}
		rows = append(rows, mine...)
	}
	tw := table()
	fmt.Fprintln(tw, obs.header)
	for _, r := range rows {
		fmt.Fprintln(tw, r.cells())
	}
	return tw.Flush()
}

// microOnOff: the loops in check mode, the observation on and off,
// paired with the bare run of the same repeat. The openat loop's calls
// are each a file access (an audit record to reassemble, or a call the
// proxy performs); getppid is no file call, so its difference is what the
// run's audit context costs every syscall of the agent.
func microOnOff(ctx context.Context, cfg config, obs onOff, ws []workload, bases *baselines) error {
	tw := table()
	fmt.Fprintln(tw, obs.microHeader)
	for _, w := range ws {
		base, err := bases.of(ctx, w)
		if err != nil {
			return err
		}
		rows := make([]filesMicroRow, len(cfg.backends))
		for j, b := range cfg.backends {
			rows[j] = filesMicroRow{workload: w.name, unit: w.unit(), backend: b, iterations: iterations(w), findings: map[string]uint64{}}
		}
		for i := 0; i < microReps(cfg, w); i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			for j := range rows {
				row := &rows[j]
				row.bare = append(row.bare, m.perCall)
				err := backToBack(i, func(on bool) error {
					g, r, cpu, err := obs.run(ctx, w, row.backend, baseline.ModeCheck, base, on)
					if err != nil {
						return err
					}
					obs.findings(row.findings, r)
					if on {
						row.on, row.onWall, row.onCPU = append(row.on, g.perCall), append(row.onWall, ms(g.wall)), append(row.onCPU, ms(cpu))
					} else {
						row.off, row.offWall, row.offCPU = append(row.off, g.perCall), append(row.offWall, ms(g.wall)), append(row.offCPU, ms(cpu))
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

// run runs w on backend b in mode (check: against base) with the
// observation on or off, as runMeasured does. A run whose observation is
// not what it is labelled with is an error: the row would not measure
// what it says.
func (obs onOff) run(ctx context.Context, w workload, b verdict.Backend, mode baseline.Mode, base string, on bool) (m measurement, r *verdict.Result, cpu time.Duration, err error) {
	var opts []harness.Option
	if !on {
		opts = append(opts, obs.without())
	}
	m, r, cpu, err = runMeasured(ctx, w, b, mode, base, fmt.Sprintf("%s: %v", obs.name, on), opts...)
	if err == nil && obs.observed(r) != on {
		err = fmt.Errorf("%s %s on %s: %s observed %v, want %v", mode, w.name, b, obs.name, obs.observed(r), on)
	}
	return m, r, cpu, err
}

// addFileFindings counts what r found outside its baseline: calls and
// programs as addFindings does, file accesses as "ACCESS PATH".
func addFileFindings(into map[string]uint64, r *verdict.Result) {
	addFindings(into, r)
	for _, v := range r.FileViolations {
		into[v.Op.String()+" "+v.Path] += v.Count
	}
}

// filesListed is the (path, access) pairs in r's observation.
func filesListed(r *verdict.Result) int {
	n := 0
	if r.Observed == nil {
		return 0
	}
	for _, ops := range r.Observed.Files {
		n += len(ops)
	}
	return n
}
