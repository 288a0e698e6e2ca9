package main

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

func TestArgRecordRowCells(t *testing.T) {
	// The medians are 1.5x apart; every pair is 1.2x.
	r := argRecordRow{workload: "python agent read-only", backend: verdict.BackendAudit, bare: samples{90, 90, 90},
		classes: samples{120, 240, 240}, blind: samples{100, 100, 200}, events: samples{2500, 2600, 2700}, notified: samples{300, 310, 320},
		blindEvents: samples{2400, 2500, 2600}, blindNoti: samples{0, 0, 0}, learnt: 12, lossless: true}
	want := "python agent read-only\taudit\t90.0\t240.0\t100.0\t2.40x\t1.20x\t<= 1.50x\tyes\t2600\t310\t12\t2500\t0\ttrue\t2.67x\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(argRecordHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestClassKeys(t *testing.T) {
	o := baseline.NewObservation("bench")
	o.Add(scmp.Native(), "read", 3)
	o.Add(scmp.Native(), "openat(read)", 2)
	o.Add(scmp.Native(), "socket(AF_UNIX)", 1)
	if got := classKeys(o); got != 2 {
		t.Errorf("classKeys = %d, want 2", got)
	}
	if got := classKeys(nil); got != 0 {
		t.Errorf("classKeys(nil) = %d", got)
	}
}
