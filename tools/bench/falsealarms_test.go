package main

import (
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
)

func TestFirstReason(t *testing.T) {
	for _, c := range []struct {
		name string
		r    harness.Result
		want string
	}{
		{"syscall first", harness.Result{
			Violations:     harness.Violations{{Syscall: "clock_nanosleep"}, {Syscall: "sched_yield"}},
			FileViolations: []harness.FileViolation{{FileTouch: harness.FileTouch{Path: "/etc/passwd", Op: baseline.FileRead}}},
		}, "syscall clock_nanosleep"},
		{"program", harness.Result{ProgramViolations: []harness.ProgramViolation{{ProgramRun: harness.ProgramRun{Path: "/usr/bin/uname"}}}},
			"program /usr/bin/uname"},
		{"file", harness.Result{FileViolations: []harness.FileViolation{{FileTouch: harness.FileTouch{Path: "/etc/passwd", Op: baseline.FileRead}}}},
			"file read /etc/passwd"},
		{"gaps", harness.Result{Verdict: harness.VerdictInconclusive,
			Inconclusive: "audit records lost: 3 audit records never delivered (serial number gaps: 1201-1203)"},
			"inconclusive: records never delivered (serial number gaps)"},
		{"other inconclusive", harness.Result{Verdict: harness.VerdictInconclusive,
			Inconclusive: "1 file name could not be tied (unlinkat, fd 3)\nmore"},
			"inconclusive: N file name could not be tied (unlinkat, fd N)"},
	} {
		if got := firstReason(&c.r); got != c.want {
			t.Errorf("%s: firstReason = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestReasonShapeCapsLength(t *testing.T) {
	long := "a reason that goes on and on and on and on and on and on and on and on and on ééé"
	if got := reasonShape(long); len([]rune(got)) != 71 {
		t.Errorf("reasonShape kept %d runes: %q", len([]rune(got)), got)
	}
}

func TestFalseAlarmLists(t *testing.T) {
	if got := codeList(map[int]int{3: 1, 0: 27, 1: 2}); got != "0:27 1:2 3:1" {
		t.Errorf("codeList = %q", got)
	}
	got := reasonList(map[string]int{"syscall sched_yield": 1, "syscall clock_nanosleep": 13, "a": 1})
	if want := "syscall clock_nanosleep (13); a (1); syscall sched_yield (1)"; got != want {
		t.Errorf("reasonList = %q, want %q", got, want)
	}
	if got := reasonList(nil); got != "-" {
		t.Errorf("reasonList(nil) = %q", got)
	}
	r := faRow{byCode: map[int]int{0: 20, 1: 7, 3: 2, -1: 1}}
	if got := r.alarms(); got != 10 {
		t.Errorf("alarms = %d, want 10", got)
	}
}
