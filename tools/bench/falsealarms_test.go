package main

import (
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

func TestFirstReason(t *testing.T) {
	for _, c := range []struct {
		name string
		r    verdict.Result
		want string
	}{
		{"syscall first", verdict.Result{
			Violations:     verdict.Violations{{Syscall: "clock_nanosleep"}, {Syscall: "sched_yield"}},
			FileViolations: []verdict.FileViolation{{FileTouch: verdict.FileTouch{Path: "/etc/passwd", Op: baseline.FileRead}}},
		}, "syscall clock_nanosleep"},
		{"program", verdict.Result{ProgramViolations: []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/uname"}}}},
			"program /usr/bin/uname"},
		{"file", verdict.Result{FileViolations: []verdict.FileViolation{{FileTouch: verdict.FileTouch{Path: "/etc/passwd", Op: baseline.FileRead}}}},
			"file read /etc/passwd"},
		{"gaps", verdict.Result{Verdict: verdict.VerdictInconclusive,
			Inconclusive: "audit records lost: 3 audit records never delivered (serial number gaps: 1201-1203)"},
			"inconclusive: records never delivered (serial number gaps)"},
		{"other inconclusive", verdict.Result{Verdict: verdict.VerdictInconclusive,
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
