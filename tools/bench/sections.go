package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

func table() *tabwriter.Writer {
	return tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
}

// checkOverhead: bare vs the harness in check mode on each backend vs the
// profile's filter loaded directly in binary-tree and linear order,
// interleaved per rep.
func checkOverhead(ctx context.Context, cfg config, ws []workload, bases *baselines) error {
	fmt.Printf("\n== check-mode overhead (median of %d; every syscall in the baseline, nothing logged or notified; paired: median of each repeat's check/bare; met: the paired ratio as printed against the target)\n", cfg.reps)
	tw := table()
	var cpu []string
	fmt.Fprintln(tw, checkHeader)
	for _, w := range ws {
		base, err := bases.of(ctx, w)
		if err != nil {
			return err
		}
		rows := make([]checkRow, len(cfg.backends))
		for i, b := range cfg.backends {
			rows[i] = checkRow{workload: w.name, unit: w.unit(), backend: b, target: checkTarget(w), outside: map[string]uint64{}}
		}
		var bare, tree, linear, bareCPU, treeCPU, linearCPU samples
		for i := 0; i < cfg.reps; i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			bare = append(bare, w.value(m))
			bareCPU = append(bareCPU, ms(m.cpu))
			for j := range rows {
				row := &rows[j]
				m, r, err := w.runOn(ctx, row.backend, harness.WithBaselines(base), harness.WithMode(baseline.ModeCheck))
				if err != nil {
					return err
				}
				if !r.Conclusive() {
					return fmt.Errorf("check %s on %s: inconclusive: %s", w.name, row.backend, r.Inconclusive)
				}
				for _, v := range r.Violations { // calls outside the recorded baseline: each one logged or notified
					row.outside[v.Syscall] += v.Count
				}
				row.gated = append(row.gated, w.value(m))
			}
			for _, order := range []string{"tree", "linear"} {
				m, err := w.runPlain(ctx, loaderPrefix(order, base)...)
				if err != nil {
					return err
				}
				if order == "tree" {
					tree, treeCPU = append(tree, w.value(m)), append(treeCPU, ms(m.cpu))
				} else {
					linear, linearCPU = append(linear, w.value(m)), append(linearCPU, ms(m.cpu))
				}
			}
		}
		for j := range rows {
			rows[j].bare = bare
			if j == 0 { // the filters are the audit backend's (LOG as the default action)
				rows[j].tree, rows[j].linear = tree, linear
			}
			fmt.Fprintln(tw, rows[j].cells())
		}
		cpu = append(cpu, fmt.Sprintf("%s\t%.1f\t%.1f\t%s\t%.1f\t%s\t", w.name, bareCPU.median(), treeCPU.median(),
			ratio(treeCPU.median(), bareCPU.median()), linearCPU.median(), ratio(linearCPU.median(), bareCPU.median())))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// CPU time is less disturbed by other load than wall time; the
	// harness's check loads the same binary-tree filter as "filter: tree"
	// but for the exec rule (see execFiltered).
	fmt.Printf("\nCPU time (user+sys) of the workload's processes, median ms:\n")
	tw = table()
	fmt.Fprintln(tw, "workload\tbare\tfilter: tree\tratio\tfilter: linear\tratio\t")
	for _, line := range cpu {
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// outsideCost: what each call outside the baseline costs in check mode,
// per backend: w's loop syscall is left out of base, so every iteration
// is logged (audit) or notified (notify).
func outsideCost(ctx context.Context, cfg config, w workload, base string) error {
	fmt.Printf("\n== cost per call outside the baseline: check mode, %s against a baseline without it (median of %d; paired: median of each repeat's (check - bare) / calls; loop: the fastest chunk's ns per call, as in the check table)\n", w.name, cfg.reps)
	rows := make([]outsideRow, len(cfg.backends))
	for i, b := range cfg.backends {
		rows[i] = outsideRow{backend: b, lossless: true}
	}
	for i := 0; i < cfg.reps; i++ {
		m, err := w.runPlain(ctx)
		if err != nil {
			return err
		}
		for j := range rows {
			row := &rows[j]
			row.bare, row.bareLoop = append(row.bare, ms(m.wall)), append(row.bareLoop, m.perCall)
			g, r, err := w.runOn(ctx, row.backend, harness.WithBaselines(base), harness.WithMode(baseline.ModeCheck))
			if err != nil {
				return err
			}
			if r.Verdict != verdict.VerdictViolation || r.Events == 0 {
				return fmt.Errorf("check %s on %s: %s, want a violation per call", w.name, row.backend, ci.Summary(r))
			}
			row.lossless = row.lossless && r.Conclusive() && !r.Loss.Any()
			row.gated, row.gatedLoop = append(row.gated, ms(g.wall)), append(row.gatedLoop, g.perCall)
			row.calls = append(row.calls, float64(r.Events))
		}
	}
	tw := table()
	fmt.Fprintln(tw, outsideHeader)
	for _, r := range rows {
		fmt.Fprintln(tw, r.cells())
	}
	return tw.Flush()
}

// recordVsStrace: record mode through the harness on each backend against
// strace -f, interleaved per rep.
func recordVsStrace(ctx context.Context, cfg config, ws []workload) error {
	if _, err := exec.LookPath("strace"); err != nil {
		fmt.Printf("\n== record mode vs strace: skipped (no strace: make deps-bench)\n")
		return nil
	}
	fmt.Printf("\n== record mode vs strace -f -o /dev/null (median of %d wall times; paired: median of each repeat's strace/record; vs audit: each repeat's record/audit record)\n", cfg.reps)
	tw := table()
	fmt.Fprintln(tw, "workload\tbackend\tbare ms\tsysgate record ms\tevents\tevents/s\tlossless\tstrace -f ms\tstrace/record\tpaired\trecord/bare\tvs audit, paired\t")
	type backendRuns struct {
		rec, rate samples
		events    uint64
		lossless  bool
	}
	for _, w := range ws {
		var bare, st samples
		runs := make([]backendRuns, len(cfg.backends))
		for j := range runs {
			runs[j].lossless = true
		}
		for i := 0; i < cfg.reps; i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			bare = append(bare, ms(m.wall))
			for j, b := range cfg.backends {
				m, r, err := w.runOn(ctx, b, harness.WithMode(baseline.ModeRecord))
				if err != nil {
					return err
				}
				br := &runs[j]
				br.lossless = br.lossless && r.Conclusive() && !r.Loss.Any()
				br.events = r.Events
				br.rec = append(br.rec, ms(m.wall))
				br.rate = append(br.rate, float64(r.Events)/r.Duration.Seconds())
			}
			m, err = w.runPlain(ctx, "strace", "-f", "-o", "/dev/null")
			if err != nil {
				return err
			}
			st = append(st, ms(m.wall))
		}
		for j, b := range cfg.backends {
			br := runs[j]
			vsAudit := "-"
			if j > 0 {
				vsAudit = pairedRatio(br.rec, runs[0].rec)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%d\t%.0f\t%v\t%.1f\t%s\t%s\t%s\t%s\t\n", w.name, b, bare.median(), br.rec.median(), br.events,
				br.rate.median(), br.lossless, st.median(), ratio(st.median(), br.rec.median()), pairedRatio(st, br.rec),
				ratio(br.rec.median(), bare.median()), vsAudit)
		}
	}
	return tw.Flush()
}

// startup: per-launch cost of a gated /bin/true against a bare one, and
// the barrier on its own.
func startup(ctx context.Context, cfg config, w workload, base string) error {
	fmt.Printf("\n== start-up (median of %d launches)\n", cfg.launches)
	var bare, gated, held, flat, barrier, compiled samples
	stream, err := auditlog.Shared()
	if err != nil {
		return err
	}
	check := func() (float64, error) {
		m, r, err := w.runGated(ctx, harness.WithBaselines(base), harness.WithMode(baseline.ModeCheck))
		if err != nil {
			return 0, err
		}
		if r.Verdict != verdict.VerdictClean {
			return 0, fmt.Errorf("check /bin/true: %s", ci.Summary(r))
		}
		return ms(m.wall), nil
	}
	for i := 0; i < cfg.launches; i++ {
		m, err := w.runPlain(ctx)
		if err != nil {
			return err
		}
		bare = append(bare, ms(m.wall))
		g, err := check()
		if err != nil {
			return err
		}
		gated = append(gated, g)
		// Again with the audit tuning already held, as when other runs of
		// a suite are in flight: no kernel settings change per run.
		release, err := auditctl.AcquireTuning()
		if err != nil {
			return err
		}
		g, err = check()
		if rerr := release(); err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
		held = append(held, g)
		// Without the run's PID namespace (its init, its /proc), for what
		// isolation costs per launch.
		m, r, err := w.runGated(ctx, harness.WithBaselines(base), harness.WithMode(baseline.ModeCheck), harness.WithoutPIDNamespace())
		if err != nil {
			return err
		}
		if r.Verdict != verdict.VerdictClean {
			return fmt.Errorf("check /bin/true without a PID namespace: %s", ci.Summary(r))
		}
		flat = append(flat, ms(m.wall))
		start := time.Now()
		p, err := baseline.LoadStackFor(hostSelector(), base)
		if err == nil {
			_, err = compile.Compile(p, baseline.ModeCheck, compile.Options{})
		}
		if err != nil {
			return err
		}
		compiled = append(compiled, ms(time.Since(start)))
		start = time.Now()
		if err := stream.Barrier(ctx); err != nil {
			return err
		}
		barrier = append(barrier, ms(time.Since(start)))
	}
	tw := table()
	fmt.Fprintln(tw, "what\tms\t")
	fmt.Fprintf(tw, "bare fork+exec+wait of /bin/true\t%.3f\t\n", bare.median())
	fmt.Fprintf(tw, "harness.Run of /bin/true (check, clean)\t%.3f\t\n", gated.median())
	fmt.Fprintf(tw, "harness.Run of /bin/true, audit tuning already held\t%.3f\t\n", held.median())
	fmt.Fprintf(tw, "harness.Run of /bin/true without the run's PID namespace\t%.3f\t\n", flat.median())
	fmt.Fprintf(tw, "the PID namespace per launch, paired (target <= 1 ms)\t%.3f\t\n", pairedDiff(gated, flat))
	fmt.Fprintf(tw, "end-of-run barrier alone\t%.3f\t\n", barrier.median())
	fmt.Fprintf(tw, "load + compile the baseline alone (a process's first run of a file; later runs reuse it)\t%.3f\t\n", compiled.median())
	fmt.Fprintf(tw, "overhead per launch, barrier included\t%.3f\t\n", gated.median()-bare.median())
	fmt.Fprintf(tw, "overhead per launch, barrier excluded\t%.3f\t\n", gated.median()-bare.median()-barrier.median())
	fmt.Fprintf(tw, "overhead per launch, tuning held, barrier included\t%.3f\t\n", held.median()-bare.median())
	fmt.Fprintf(tw, "overhead per launch, paired (median of each launch minus the bare one before it)\t%.3f\t\n", pairedDiff(gated, bare))
	fmt.Fprintf(tw, "the same, tuning held\t%.3f\t\n", pairedDiff(held, bare))
	return tw.Flush()
}

// peakRSS runs the CLI recording and checking the microbenchmark and
// reports its peak RSS (the agent is a small static binary, so the
// rusage maximum is sysgate's).
func peakRSS(ctx context.Context, cfg config, dir string, w workload, base string) error {
	fmt.Printf("\n== sysgate CLI peak RSS\n")
	tw := table()
	fmt.Fprintln(tw, "run\tpeak RSS MiB\tevents\t")
	for _, mode := range []string{"record", "check"} {
		args := []string{mode, "-o", dir + "/rss.yaml"}
		if mode == "check" {
			args = []string{mode, "-b", base}
		}
		args = append(append(args, "--"), w.command...)
		cmd := exec.CommandContext(ctx, cfg.cli, args...)
		var out strings.Builder
		cmd.Stderr, cmd.Stdout = &out, &out
		hwm, err := runPeakRSS(cmd)
		if cmd.ProcessState == nil || (err != nil && cmd.ProcessState.ExitCode() != 3) {
			return fmt.Errorf("sysgate %s: %v: %s", mode, err, out.String())
		}
		events, ok := loggedSyscalls(out.String())
		if !ok {
			events = "-"
		}
		if cmd.ProcessState.ExitCode() == 3 {
			// Reported, not hidden: the CLI could not keep up and said so.
			_, why, _ := strings.Cut(out.String(), "INCONCLUSIVE")
			events += " (INCONCLUSIVE: " + firstLine(why) + ")"
		}
		fmt.Fprintf(tw, "sysgate %s %s\t%.1f\t%s\t\n", mode, strings.Join(w.command[1:], " "), float64(hwm)/1024, events)
	}
	return tw.Flush()
}

// runPeakRSS runs cmd and returns the peak RSS (VmHWM, KiB) of the program
// it execs. Not the rusage ru_maxrss: os/exec starts children with
// CLONE_VM, so that also counts this benchmark's own RSS from before the
// exec. VmHWM belongs to the exec'd image alone and only grows, so the
// last reading before the exit is the peak (but for the last few ms).
func runPeakRSS(cmd *exec.Cmd) (kib int, err error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return kib, err
		case <-tick.C:
			if v, err := kernel.PeakRSS(cmd.Process.Pid); err == nil {
				kib = v
			}
		}
	}
}

// countList prints {name: count} sorted by name, "-" when empty.
func countList(m map[string]uint64) string {
	if len(m) == 0 {
		return "-"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%s:%d", n, m[n])
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "("))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ")")
}
