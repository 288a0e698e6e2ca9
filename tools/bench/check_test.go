package main

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/verdict"
)

func TestRatioTargetMet(t *testing.T) {
	for _, tc := range []struct {
		name       string
		t          ratioTarget
		runs, bare samples
		want       string
	}{
		{"under", microTarget, samples{105, 210}, samples{100, 200}, "yes"},
		{"at the target as printed", microTarget, samples{110.4}, samples{100}, "yes"},
		{"over as printed", microTarget, samples{110.6}, samples{100}, "no"},
		// The medians are 1.5x apart; every pair is 1.01x.
		{"paired, not medians", sessionTarget, samples{101, 101, 202, 202, 202}, samples{100, 100, 100, 200, 200}, "yes"},
		{"no pairs", microTarget, samples{1, 2}, samples{1}, "-"},
		{"no target", 0, samples{5}, samples{1}, "-"},
	} {
		if got := tc.t.met(tc.runs, tc.bare); got != tc.want {
			t.Errorf("%s: met = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := microTarget.String(); got != "<= 1.10x" {
		t.Errorf("microTarget prints %q", got)
	}
	if got := ratioTarget(0).String(); got != "-" {
		t.Errorf("no target prints %q", got)
	}
}

func TestCheckRowCells(t *testing.T) {
	audit := checkRow{workload: "getppid x1000000", unit: "ns/call", backend: verdict.BackendAudit, bare: samples{200, 210}, gated: samples{220, 220},
		target: microTarget, tree: samples{215}, linear: samples{230}, outside: map[string]uint64{"uname": 2, "futex": 1}}
	want := "getppid x1000000\tns/call\taudit\t205.0\t220.0\t1.07x\t1.07x\t<= 1.10x\tyes\t215.0\t1.05x\t230.0\t1.12x\tfutex:1,uname:2\t"
	if got := audit.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	notify := checkRow{workload: "mcp", unit: "ms", backend: verdict.BackendNotify, bare: samples{100}, gated: samples{110}, target: sessionTarget}
	want = "mcp\tms\tnotify\t100.0\t110.0\t1.10x\t1.10x\t<= 1.02x\tno\t-\t-\t-\t-\t-\t"
	if got := notify.cells(); got != want {
		t.Errorf("cells without filter runs:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(notify.cells(), "\t"), strings.Count(checkHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestOutsideRowCells(t *testing.T) {
	// 1,000 calls: 40 ms over bare is 40 µs a call. The paired figure
	// takes each repeat's own difference: 30, 40 and 50 µs.
	r := outsideRow{backend: verdict.BackendNotify, bare: samples{20, 20, 20}, gated: samples{50, 60, 70}, calls: samples{1000, 1000, 1000},
		bareLoop: samples{200, 210, 220}, gatedLoop: samples{35000, 35100, 35200}, lossless: true}
	want := "notify\t20.0\t60.0\t1000\ttrue\t40.00\t40.00\t210.0\t35100.0\t34.89\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	r.calls = samples{1000, 0, 1000}
	if got := strings.Split(r.cells(), "\t")[6]; got != "-" {
		t.Errorf("paired µs/call with a repeat of no calls: %q, want -", got)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(outsideHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}
