package main

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

func TestExecRowCells(t *testing.T) {
	// ns per exec: programs add 80 µs in every repeat, and the bare run
	// of a repeat is 180 µs faster in the median pair (200 in the
	// medians); 200 execs, the whole runs 20 ms apart (100 µs an exec),
	// sysgate's CPU 10 ms apart (50 µs).
	r := execRow{workload: "fork+exec /bin/true x200", backend: verdict.BackendAudit, mode: baseline.ModeCheck, execs: 200,
		bare: samples{500e3, 500e3, 600e3}, on: samples{600e3, 700e3, 780e3}, off: samples{520e3, 620e3, 700e3},
		bareWall: samples{110, 110, 130}, onWall: samples{150, 170, 180}, offWall: samples{130, 150, 160},
		onCPU: samples{30, 30, 40}, offCPU: samples{20, 20, 30},
		seen: samples{200, 200, 199}, unverified: 7, findings: map[string]uint64{"program /usr/bin/true": 1}}
	want := "fork+exec /bin/true x200\taudit\tcheck\t500.0\t700.0\t620.0\t180.0\t100.0\t80.0\t<= 100 µs\tyes\t1.13x\t100.0\t50.0\t200\t7\tprogram /usr/bin/true:1\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(execHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
	r.onWall = r.onWall[:1]
	if got := strings.Split(r.cells(), "\t")[12]; got != "-" {
		t.Errorf("whole run without pairs: %q, want -", got)
	}
}

func TestExecTargetMet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		on, off samples
		want    string
	}{
		{"under", samples{150e3}, samples{100e3}, "yes"},
		{"at the target as printed", samples{200.04e3}, samples{100e3}, "yes"},
		{"over as printed", samples{200.06e3}, samples{100e3}, "no"},
		// The medians are 100 µs apart; every pair 10 µs.
		{"paired, not medians", samples{110e3, 110e3, 1010e3}, samples{100e3, 1000e3, 1000e3}, "yes"},
		{"no pairs", samples{1, 2}, samples{1}, "-"},
	} {
		if got := execTargetMet(tc.on, tc.off); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestProgramsMicroRowCells(t *testing.T) {
	r := programsMicroRow{workload: "getppid x1000000", unit: "ns/call", backend: verdict.BackendNotify,
		bare: samples{200, 200}, on: samples{220, 222}, off: samples{220, 218}, stepsOn: 12, stepsOff: 12, insnsOn: 96, insnsOff: 97,
		outside: map[string]uint64{}}
	want := "getppid x1000000\tns/call\tnotify\t200.0\t221.0\t219.0\t1.10x\t1.10x\t1.01x\t12\t12\t96\t97\t-\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(programsMicroHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestProgramCountAndFindings(t *testing.T) {
	r := &verdict.Result{
		Programs:          []verdict.ProgramRun{{Path: "/tmp/execs", Count: 1}, {Path: "/usr/bin/true", Count: 200}},
		Violations:        verdict.Violations{{Syscall: "uname", Count: 2}},
		ProgramViolations: []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/true", Count: 200}}},
	}
	if got := programCount(r, "/usr/bin/true"); got != 200 {
		t.Errorf("programCount = %d, want 200", got)
	}
	if got := programCount(r, "/bin/true"); got != 0 {
		t.Errorf("programCount of an unlisted path = %d", got)
	}
	into := map[string]uint64{"uname": 1}
	addFindings(into, r)
	if got := countList(into); got != "program /usr/bin/true:200,uname:3" {
		t.Errorf("findings %s", got)
	}
}
