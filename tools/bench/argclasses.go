package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

// argRecordTarget is the most a record run that learns argument classes
// may take over one that learns names only (--no-arg-classes), paired.
// Reported, never a pass/fail.
const argRecordTarget ratioTarget = 1.5

// argRecordRow is one backend's line of the argument-learning table: the
// record runs with classes and with names only, and the bare run made
// before them in the same repeat.
type argRecordRow struct {
	workload               string
	backend                verdict.Backend
	bare, classes, blind   samples // wall ms
	events, notified       samples // with classes
	blindEvents, blindNoti samples // names only
	learnt                 int     // class keys in the last repeat's observation with classes
	lossless               bool
}

const argRecordHeader = "workload\tbackend\tbare ms\trecord ms\tnames only ms\tratio\tpaired\ttarget\tmet\tevents\tnotified\tclasses learnt\tnames only: events\tnotified\tlossless\trecord/bare\t"

// cells is the row for argRecordHeader; events and notified are medians.
func (r argRecordRow) cells() string {
	count := func(s samples) string { return strconv.FormatFloat(s.median(), 'f', 0, 64) }
	return fmt.Sprintf("%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%v\t%s\t", r.workload, r.backend,
		r.bare.median(), r.classes.median(), r.blind.median(), ratio(r.classes.median(), r.blind.median()),
		pairedRatio(r.classes, r.blind), argRecordTarget, argRecordTarget.met(r.classes, r.blind),
		count(r.events), count(r.notified), r.learnt, count(r.blindEvents), count(r.blindNoti), r.lossless,
		ratio(r.classes.median(), r.bare.median()))
}

// recordArgClasses: record mode learning argument classes against the
// same record with classes off, on each backend. Each repeat runs the
// two back to back, in alternating order, so neither always has the
// warmer caches.
func recordArgClasses(ctx context.Context, cfg config, ws []workload) error {
	fmt.Printf("\n== record mode: argument classes learnt vs names only (--no-arg-classes) (median of %d wall times; paired: median of each repeat's classes/names only, the two run back to back in alternating order; notified: calls that went to the run's listener, the rest were logged; events and notified are medians)\n", cfg.reps)
	tw := table()
	fmt.Fprintln(tw, argRecordHeader)
	for _, w := range ws {
		rows := make([]argRecordRow, len(cfg.backends))
		for j, b := range cfg.backends {
			rows[j] = argRecordRow{workload: w.name, backend: b, lossless: true}
		}
		for i := 0; i < cfg.reps; i++ {
			m, err := w.runPlain(ctx)
			if err != nil {
				return err
			}
			for j := range rows {
				row := &rows[j]
				row.bare = append(row.bare, ms(m.wall))
				err := backToBack(i, func(classes bool) error {
					g, r, notified, err := recordCounted(ctx, w, row.backend, !classes)
					if err != nil {
						return err
					}
					row.lossless = row.lossless && r.Conclusive() && !r.Loss.Any()
					if !classes {
						row.blind = append(row.blind, ms(g.wall))
						row.blindEvents, row.blindNoti = append(row.blindEvents, float64(r.Events)), append(row.blindNoti, float64(notified))
					} else {
						row.classes = append(row.classes, ms(g.wall))
						row.events, row.notified = append(row.events, float64(r.Events)), append(row.notified, float64(notified))
						row.learnt = classKeys(r.Observed)
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

// recordCounted records w on backend b, learning argument classes unless
// blind, and counts the calls that reached the run's listener. A run that
// learnt classes when told not to, or none when told to, is an error: the
// row would not measure what it is labelled with.
func recordCounted(ctx context.Context, w workload, b verdict.Backend, blind bool) (measurement, *verdict.Result, uint64, error) {
	var notified atomic.Uint64 // the listener's and the audit stream's goroutines both report
	opts := []harness.Option{harness.WithMode(baseline.ModeRecord), harness.WithProgress(func(ev *observe.Syscall) {
		if harness.Notified(ev) {
			notified.Add(1)
		}
	})}
	if blind {
		opts = append(opts, harness.WithoutArgClasses())
	}
	m, r, err := w.runOn(ctx, b, opts...)
	if err != nil {
		return m, r, 0, err
	}
	if learnt := classKeys(r.Observed); blind != (learnt == 0) {
		return m, r, 0, fmt.Errorf("record %s on %s (names only: %v): %d argument classes learnt", w.name, b, blind, learnt)
	}
	return m, r, notified.Load(), nil
}

// classKeys counts the keys with an argument class in o, every arch.
func classKeys(o *baseline.Observation) int {
	if o == nil {
		return 0
	}
	n := 0
	for _, calls := range o.Syscalls {
		for key := range calls {
			if _, class := argclass.SplitKey(key); class != "" {
				n++
			}
		}
	}
	return n
}
