package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// benchBackends are the backends measured side by side: audit (the bench
// needs root, as audit does) and notify where this kernel has it, in that
// order, so a row can be held against audit's.
func benchBackends() []verdict.Backend {
	if why := harness.NotifyUnavailable(); why != "" {
		fmt.Printf("notify backend: not measured (%s)\n", why)
		return []verdict.Backend{verdict.BackendAudit}
	}
	return []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify}
}

// ratioTarget is the most a check row's paired ratio over bare may be;
// 0 holds it to nothing. Reported, never a pass/fail.
type ratioTarget float64

// The check-mode targets (docs/performance.md): a microbenchmark's loop,
// and a realistic session's wall time.
const (
	microTarget   ratioTarget = 1.10
	sessionTarget ratioTarget = 1.02
)

func checkTarget(w workload) ratioTarget {
	if w.perCall {
		return microTarget
	}
	return sessionTarget
}

func (t ratioTarget) String() string {
	if t == 0 {
		return "-"
	}
	return fmt.Sprintf("<= %.2fx", float64(t))
}

// met says "yes" or "no" for runs against the bare runs paired with them,
// or "-" without a target or pairs. It judges the ratio as printed (two
// decimals), so a row never shows 1.10x and "no" against 1.10x.
func (t ratioTarget) met(runs, bare samples) string {
	r, ok := pairedRatioOf(runs, bare)
	if t == 0 || !ok {
		return "-"
	}
	if math.Round(r*100) <= math.Round(float64(t)*100) {
		return "yes"
	}
	return "no"
}

// checkRow is one backend's line of the check-mode table: its check runs
// against the bare runs of the same repeats and, where measured, the
// same filter loaded without the harness.
type checkRow struct {
	workload, unit string
	backend        verdict.Backend
	bare, gated    samples
	target         ratioTarget
	tree, linear   samples           // none: not measured for this row
	outside        map[string]uint64 // calls outside the baseline, all repeats
}

const checkHeader = "workload\tunit\tbackend\tbare\tsysgate check\tratio\tpaired\ttarget\tmet\tfilter: tree\tratio\tfilter: linear\tratio\toutside the baseline (all reps)\t"

// cells is the row for checkHeader.
func (r checkRow) cells() string {
	b := r.bare.median()
	filter := func(s samples) string {
		if len(s) == 0 {
			return "-\t-"
		}
		return fmt.Sprintf("%.1f\t%s", s.median(), ratio(s.median(), b))
	}
	return fmt.Sprintf("%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", r.workload, r.unit, r.backend, b, r.gated.median(),
		ratio(r.gated.median(), b), pairedRatio(r.gated, r.bare), r.target, r.target.met(r.gated, r.bare),
		filter(r.tree), filter(r.linear), countList(r.outside))
}

// outsideRow is one backend's line of the cost per call outside the
// baseline: wall ms of the bare and the check runs, the calls each check
// run saw, and the loop's fastest ns per call in both.
type outsideRow struct {
	backend             verdict.Backend
	bare, gated, calls  samples
	bareLoop, gatedLoop samples
	lossless            bool
}

const outsideHeader = "backend\tbare ms\tsysgate check ms\tcalls outside\tlossless\tµs/call\tpaired µs/call\tloop: bare ns/call\tloop: check ns/call\tloop: µs/call over bare\t"

// cells is the row for outsideHeader.
func (r outsideRow) cells() string {
	calls := r.calls.median()
	perCall, paired := "-", "-"
	if calls > 0 {
		perCall = fmt.Sprintf("%.2f", (r.gated.median()-r.bare.median())*1000/calls)
	}
	if len(r.gated) == len(r.bare) && len(r.calls) == len(r.bare) && len(r.bare) > 0 {
		each := make(samples, 0, len(r.bare))
		for i := range r.bare {
			if r.calls[i] > 0 {
				each = append(each, (r.gated[i]-r.bare[i])*1000/r.calls[i])
			}
		}
		if len(each) == len(r.bare) {
			paired = fmt.Sprintf("%.2f", each.median())
		}
	}
	return fmt.Sprintf("%s\t%.1f\t%.1f\t%s\t%v\t%s\t%s\t%.1f\t%.1f\t%.2f\t", r.backend, r.bare.median(), r.gated.median(),
		strconv.FormatFloat(calls, 'f', 0, 64), r.lossless, perCall, paired, r.bareLoop.median(), r.gatedLoop.median(),
		(r.gatedLoop.median()-r.bareLoop.median())/1000)
}
