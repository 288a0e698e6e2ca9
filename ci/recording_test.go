package ci

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

func TestRecordingReports(t *testing.T) {
	s := baseline.NewStability(baseline.DefaultRecordRuns)
	var out strings.Builder
	for _, entries := range []map[string]bool{{"x86_64 read": true}, {"x86_64 read": true, "read /tmp/\x1b[31mx": true}, {}, {}} {
		if len(entries) == 0 {
			entries = map[string]bool{"x86_64 read": true, "read /tmp/\x1b[31mx": true}
		}
		s.Next(entries)
		if err := WriteRecordRun(&out, s); err != nil {
			t.Fatal(err)
		}
	}
	res := &baseline.RecordResult{Runs: 4, Rare: []baseline.RareEntry{{Entry: "read /tmp/\x1b[31mx", Seen: 3, Runs: 4}}}
	if err := WriteRecording(&out, s, res); err != nil {
		t.Fatal(err)
	}
	want := "sysgate: record run 1 done; recording until 2 runs in a row add nothing (at least 3, at most 10 runs)\n" +
		"sysgate: record run 2 added read /tmp/\\x1b[31mx\n" +
		"sysgate: record run 3 added nothing\n" +
		"sysgate: record run 4 added nothing\n" +
		"sysgate: recorded in 4 runs (stable after run 2: runs 3 and 4 added nothing)\n" +
		"sysgate: seen in only some runs (a check may still miss them, or meet their like for the first time): read /tmp/\\x1b[31mx (3 of 4 runs)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}

	r := &verdict.Result{Agent: "py", Mode: baseline.ModeRecord, Verdict: verdict.VerdictClean, Recording: verdict.RecordingOf(s)}
	var sum strings.Builder
	if err := (&Report{Runs: []Run{{Result: r}}}).WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "Recorded py: the last of 4 record runs (stable after run 2); observed: all of them.") {
		t.Errorf("summary lacks the recording:\n%s", sum.String())
	}
}
