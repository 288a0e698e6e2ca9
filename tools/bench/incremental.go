package main

import (
	"context"
	"fmt"
	"math"
	"os/exec"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
)

// The incremental record's targets (issue 19): about a check's cost, and
// far below strace's. Reported, never a pass/fail.
const (
	incrementalTarget ratioTarget = 1.15 // incremental record / check, paired
	straceFloor       float64     = 3.0  // strace -f / incremental record, paired, at least
)

// incrementalRecord: per workload and backend, bare against check,
// incremental record (WithIncremental against the workload's recorded
// baseline) and full record, and strace -f, interleaved per rep.
func incrementalRecord(ctx context.Context, cfg config, ws []workload, bases *baselines) error {
	fmt.Printf("\n== incremental record (the baseline allowed in the kernel, only the rest logged) vs check vs full record vs strace -f (median of %d wall ms; paired: median of each repeat's ratio)\n", cfg.reps)
	tw := table()
	fmt.Fprintln(tw, "workload\tbackend\tbare\tcheck\tincremental record\tlogged\tfull record\tlogged\tstrace -f\tincr/check\tpaired\ttarget\tmet\tstrace/incr\tpaired\ttarget\tmet\tfull/incr\tincr/bare\t")
	_, haveStrace := exec.LookPath("strace")
	for _, w := range ws {
		base, err := bases.of(ctx, w)
		if err != nil {
			return err
		}
		type runs struct {
			check, inc, full      samples
			incEvents, fullEvents uint64
		}
		rows := make([]runs, len(cfg.backends))
		var bare, st samples
		for i := 0; i < cfg.reps; i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			bare = append(bare, ms(m.wall))
			for j, b := range cfg.backends {
				row := &rows[j]
				for _, kind := range []string{"check", "incremental", "full"} {
					opts := []harness.Option{harness.WithMode(baseline.ModeRecord)}
					switch kind {
					case "check":
						opts = []harness.Option{harness.WithBaselines(base), harness.WithMode(baseline.ModeCheck)}
					case "incremental":
						opts = append(opts, harness.WithBaselines(base), harness.WithIncremental())
					}
					m, r, err := w.runOn(ctx, b, opts...)
					if err != nil {
						return err
					}
					if !r.Conclusive() {
						return fmt.Errorf("%s %s on %s: inconclusive: %s", kind, w.name, b, r.Inconclusive)
					}
					if kind == "incremental" && !r.Incremental {
						return fmt.Errorf("incremental record %s on %s: the run was not incremental", w.name, b)
					}
					switch kind {
					case "check":
						row.check = append(row.check, ms(m.wall))
					case "incremental":
						row.inc, row.incEvents = append(row.inc, ms(m.wall)), r.Events
					default:
						row.full, row.fullEvents = append(row.full, ms(m.wall)), r.Events
					}
				}
			}
			if haveStrace == nil {
				m, err := w.runPlain(ctx, "strace", "-f", "-o", "/dev/null")
				if err != nil {
					return err
				}
				st = append(st, ms(m.wall))
			}
		}
		for j, b := range cfg.backends {
			r := rows[j]
			stMed, stPaired, stMet := "-", "-", "-"
			if len(st) > 0 {
				stMed, stPaired = fmt.Sprintf("%.1f", st.median()), pairedRatio(st, r.inc)
				stMet = atLeast(st, r.inc, straceFloor)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%d\t%.1f\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t>= %.2fx\t%s\t%s\t%s\t\n", w.name, b,
				bare.median(), r.check.median(), r.inc.median(), r.incEvents, r.full.median(), r.fullEvents, stMed,
				ratio(r.inc.median(), r.check.median()), pairedRatio(r.inc, r.check), incrementalTarget, incrementalTarget.met(r.inc, r.check),
				ratio(st.median(), r.inc.median()), stPaired, straceFloor, stMet,
				pairedRatio(r.full, r.inc), pairedRatio(r.inc, bare))
		}
	}
	return tw.Flush()
}

// atLeast says "yes" when the paired ratio of runs over base, as printed
// (two decimals), is at least floor, "no" below it, "-" without pairs.
func atLeast(runs, base samples, floor float64) string {
	v, ok := pairedRatioOf(runs, base)
	switch {
	case !ok:
		return "-"
	case math.Round(v*100) >= math.Round(floor*100):
		return "yes"
	}
	return "no"
}
