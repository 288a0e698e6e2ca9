package main

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

func TestFilesRowCells(t *testing.T) {
	// Files cost 10% in the median pair, and 20 ms in the median
	// difference, though the third repeat's no-files run was slow.
	r := filesRow{workload: "python agent read-only", backend: verdict.BackendAudit, mode: baseline.ModeRecord,
		bare: samples{100, 100, 100}, on: samples{220, 330, 440}, off: samples{200, 300, 1400},
		onCPU: samples{50, 60, 70}, offCPU: samples{20, 30, 40}, listed: samples{160, 163, 163},
		findings: map[string]uint64{"read /etc/hosts": 2}}
	want := "python agent read-only\taudit\trecord\t100.0\t330.0\t300.0\t1.10x\t<= 1.10x\t3.30x\t3.00x\t20.0\t60.0\t30.0\t163\tread /etc/hosts:2\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(filesHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestFilesMicroRowCells(t *testing.T) {
	// 100k pairs: whole runs 1,500 ms apart are 15,000 ns a pair;
	// sysgate's 8,000 ms of CPU 80,000 ns.
	r := filesMicroRow{workload: "openat(O_RDONLY)+close x100000", unit: "ns/pair", backend: verdict.BackendNotify, iterations: 100_000,
		bare: samples{3000}, on: samples{17000}, off: samples{2500}, onWall: samples{2000}, offWall: samples{500},
		onCPU: samples{8000}, offCPU: samples{20}, findings: map[string]uint64{}}
	want := "openat(O_RDONLY)+close x100000\tns/pair\tnotify\t1\t3000.0\t17000.0\t2500.0\t6.80x\t5.67x\t0.83x\t14500.0\t15000.0\t80000.0\t200.0\t-\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(filesMicroHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
	r.onWall = append(r.onWall, 1)
	if got := strings.Split(r.cells(), "\t")[11]; got != "-" {
		t.Errorf("whole run without pairs: %q, want -", got)
	}
}

func TestRuleCostRowCells(t *testing.T) {
	r := ruleCostRow{workload: "getppid x1000000", unit: "ns/call",
		none: samples{200, 210}, noFiles: samples{200, 220}, withFiles: samples{260, 286}}
	want := "getppid x1000000\tns/call\t205.0\t210.0\t273.0\t1.33x\t1.02x\t1.30x\t63.0\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(ruleCostHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestPerIterationAndReps(t *testing.T) {
	if got := perIteration(1.5, 1000, true); got != "1500.0" {
		t.Errorf("1.5 ms over 1000 iterations: %s ns", got)
	}
	for _, tc := range []struct {
		n  float64
		ok bool
	}{{0, true}, {1000, false}} {
		if got := perIteration(1, tc.n, tc.ok); got != "-" {
			t.Errorf("perIteration(1, %v, %v) = %s, want -", tc.n, tc.ok, got)
		}
	}
	cfg := config{reps: 5}
	openat := workload{command: []string{"micro", "openat", "f", "100000"}, perCall: true, per: "pair"}
	small := workload{command: []string{"micro", "openat", "f", "100"}, perCall: true, per: "pair"}
	getppid := workload{command: []string{"micro", "getppid", "1000000"}, perCall: true}
	if iterations(openat) != 100_000 || iterations(workload{command: []string{"x", "y"}}) != 0 {
		t.Errorf("iterations: %v", iterations(openat))
	}
	for _, tc := range []struct {
		w    workload
		want int
	}{{openat, 1}, {small, 5}, {getppid, 5}} {
		if got := microReps(cfg, tc.w); got != tc.want {
			t.Errorf("microReps(%v) = %d, want %d", tc.w.command, got, tc.want)
		}
	}
}

func TestFileFindingsAndListed(t *testing.T) {
	r := &verdict.Result{
		Violations:     verdict.Violations{{Syscall: "uname", Count: 1}},
		FileViolations: []verdict.FileViolation{{FileTouch: verdict.FileTouch{Path: "/etc/shadow", Op: baseline.FileRead, Count: 2}}},
		Observed:       &baseline.Observation{},
	}
	if got := filesListed(&verdict.Result{}); got != 0 {
		t.Errorf("filesListed without an observation = %d", got)
	}
	r.Observed.AddFile("/etc/shadow", baseline.FileRead, 2)
	r.Observed.AddFile("{workspace}/out.txt", baseline.FileWrite, 1)
	r.Observed.AddFile("{workspace}/out.txt", baseline.FileRead, 1)
	into := map[string]uint64{}
	addFileFindings(into, r)
	if got := countList(into); got != "read /etc/shadow:2,uname:1" {
		t.Errorf("findings %s", got)
	}
	if got := filesListed(r); got != 3 {
		t.Errorf("filesListed = %d, want 3", got)
	}
	if _, err := parseSections("programs,files"); err != nil {
		t.Errorf("files is a section: %v", err)
	}
}
