package ci

import (
	"fmt"
	"io"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// WriteRecordRun says what the newest run of a recording added to the
// file the runs before it would have written: one line on stderr per
// run, so a long recording shows where it is.
func WriteRecordRun(w io.Writer, s *baseline.Stability) error {
	var line string
	switch p := s.Policy; {
	case s.Runs == 1 && p.Exact > 0:
		line = fmt.Sprintf("record run 1 of %d done", p.Exact)
	case s.Runs == 1:
		line = fmt.Sprintf("record run 1 done; recording until %s in a row add nothing (at least %d, at most %d runs)",
			Count(p.Quiet, "run", "runs"), p.Min, p.Max)
	case len(s.Added[s.Runs-2]) == 0:
		line = fmt.Sprintf("record run %d added nothing", s.Runs)
	default:
		line = fmt.Sprintf("record run %d added %s", s.Runs, entryList(s.Added[s.Runs-2]))
	}
	_, err := fmt.Fprintf(w, "sysgate: %s\n", line)
	return err
}

// WriteRecording sums a recording of several runs up: how many it took,
// whether it ended stable, and the entries of the written file only some
// runs needed (res.Rare). A recording of one run (--runs 1) says nothing.
func WriteRecording(w io.Writer, s *baseline.Stability, res *baseline.RecordResult) error {
	if s == nil || s.Runs < 2 {
		return nil
	}
	var b strings.Builder
	b.WriteString("sysgate: " + RecordingLine(s) + "\n")
	if len(res.Rare) == 0 {
		b.WriteString("sysgate: every entry was needed in every run\n")
	} else {
		rare := make([]string, len(res.Rare))
		for i, r := range res.Rare {
			rare[i] = term(r.String())
		}
		fmt.Fprintf(&b, "sysgate: seen in only some runs (a check may still miss them, or meet their like for the first time): %s\n", strings.Join(rare, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RecordingLine is "recorded in 5 runs (stable after run 3: runs 4 and 5
// added nothing)", or why it is not stable.
func RecordingLine(s *baseline.Stability) string {
	quiet := s.Runs - s.LastChange
	switch p := s.Policy; {
	case p.Exact > 0 && quiet == 0:
		return fmt.Sprintf("recorded in %d runs (--runs %d); the last one added %s: more runs may add more", s.Runs, p.Exact, entryList(s.LastAdded()))
	case p.Exact > 0:
		return fmt.Sprintf("recorded in %d runs (--runs %d); nothing new after run %d", s.Runs, p.Exact, s.LastChange)
	case s.Stable():
		return fmt.Sprintf("recorded in %d runs (stable after run %d: %s added nothing)", s.Runs, s.LastChange, runSpan(s.LastChange+1, s.Runs))
	case s.LastChange < 2:
		return fmt.Sprintf("recorded in %d runs, not stable: %s in a row must add nothing (--max-runs %d)", s.Runs, Count(p.Quiet, "run", "runs"), p.Max)
	default:
		return fmt.Sprintf("recorded in %d runs, not stable: run %d still added %s (--max-runs %d); raise --max-runs, or review what only some runs do",
			s.Runs, s.LastChange, entryList(s.LastAdded()), p.Max)
	}
}

// runSpan is "run 4", "runs 4 and 5" or "runs 4 to 7".
func runSpan(from, to int) string {
	switch to - from {
	case 0:
		return fmt.Sprintf("run %d", from)
	case 1:
		return fmt.Sprintf("runs %d and %d", from, to)
	}
	return fmt.Sprintf("runs %d to %d", from, to)
}

// entryList names up to 5 entries, escaped for a terminal.
func entryList(entries []string) string {
	const show = 5
	var names []string
	for i, e := range entries {
		if i == show {
			names = append(names, fmt.Sprintf("and %d more", len(entries)-show))
			break
		}
		names = append(names, term(e))
	}
	return strings.Join(names, ", ")
}

// RecordingNote says of a Result that is the last of several record runs
// how the recording went: "the last of 4 record runs (stable after run
// 2); observed: all of them". "" for a single run.
func RecordingNote(r *verdict.Result) string {
	rec := r.Recording
	if rec == nil {
		return ""
	}
	state := fmt.Sprintf("stable after run %d", rec.LastChange)
	if !rec.Stable {
		state = fmt.Sprintf("not stable: run %d added entries", rec.LastChange)
	}
	return fmt.Sprintf("the last of %d record runs (%s); observed: all of them", rec.Runs, state)
}
