package verdict

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/observe"
)

func TestDecide(t *testing.T) {
	lost := observe.Loss{SerialGaps: 2}
	cases := []struct {
		name string
		f    Findings
		c    Completeness
		p    Policy
		want Verdict
		why  []string // each must be a line of the reasons, in order
	}{
		{name: "nothing", want: VerdictClean},
		{name: "a syscall", f: Findings{Syscalls: 1}, want: VerdictViolation},
		{name: "a program", f: Findings{Programs: 1}, want: VerdictViolation},
		{name: "a file", f: Findings{Files: 1}, want: VerdictViolation},
		{name: "a destination", f: Findings{Network: 1}, want: VerdictViolation},
		{name: "an unknown ABI", f: Findings{UnknownABI: 1}, want: VerdictViolation},
		{name: "the agent wrote its baseline", f: Findings{ModifiedBaselines: 1}, want: VerdictViolation},
		{name: "a gate's baseline changed", f: Findings{ChangedBaselines: 1}, want: VerdictViolation},
		{name: "loss alone", c: Completeness{Loss: lost}, want: VerdictInconclusive, why: []string{lost.String()}},
		{name: "a violation keeps its loss", f: Findings{Syscalls: 1}, c: Completeness{Loss: lost},
			want: VerdictViolation, why: []string{lost.String()}},
		{name: "loss outranks a failed agent", f: Findings{AgentFailed: true}, c: Completeness{Loss: lost},
			want: VerdictInconclusive, why: []string{lost.String()}},
		{name: "other processes' gaps are no loss", c: Completeness{Loss: observe.Loss{OtherGaps: 3}}, want: VerdictClean},
		{name: "the barrier failed", c: Completeness{Barrier: "timed out"}, want: VerdictInconclusive, why: []string{"barrier: timed out"}},
		{name: "the tree was lost", c: Completeness{Tracking: "pidfd: EBADF"}, want: VerdictInconclusive,
			why: []string{"process tracking failed: pidfd: EBADF"}},
		{name: "cancelled", c: Completeness{Cancelled: true, Killed: 2}, want: VerdictInconclusive, why: []string{"run cancelled; 3 processes killed"}},
		{name: "timed out", c: Completeness{TimedOut: true, Killed: 2}, want: VerdictInconclusive,
			why: []string{"agent timed out; the tree was killed (2 processes besides the agent)"}},
		{name: "unseen execs", c: Completeness{UnseenExecs: []string{"pid 7"}, UnseenNotKept: 1}, want: VerdictInconclusive,
			why: []string{"2 execs ran a program sysgate could not name (pid 7)"}},
		{name: "unseen not kept alone says nothing", c: Completeness{UnseenNotKept: 1}, want: VerdictClean},
		{name: "a record mismatch", c: Completeness{Mismatches: []string{"/bin/a: ran /bin/b"}}, want: VerdictInconclusive,
			why: []string{"/bin/a: ran /bin/b"}},
		{name: "unverified files", c: Completeness{UnverifiedFiles: []string{"a", "b", "c", "d", "e", "f"}}, want: VerdictInconclusive,
			why: []string{"6 file names could not be tied to the file the kernel used (a, b, c, d, e): the files gate cannot vouch for them"}},
		{name: "files past the learning bound", c: Completeness{LearnedFilesNotKept: 4}, want: VerdictInconclusive,
			why: []string{"4 file accesses past the 50000 a record run learns"}},
		{name: "an unverified destination", c: Completeness{UnverifiedNetwork: []string{"why\x1b"}}, want: VerdictInconclusive,
			why: []string{`a destination could not be vouched for: why\x1b`}},
		{name: "destinations past the learning bound", c: Completeness{LearnedNetworkNotKept: 1}, want: VerdictInconclusive,
			why: []string{"1 destinations past the 20000 a record run learns"}},
		{name: "a failed agent", f: Findings{AgentFailed: true}, want: VerdictAgentFailed},
		{name: "a failed agent, allowed", f: Findings{AgentFailed: true}, p: Policy{AllowAgentFailure: true}, want: VerdictClean},
		{name: "a violation outranks a failed agent", f: Findings{Files: 1, AgentFailed: true}, want: VerdictViolation},
		{name: "reasons in order", c: Completeness{Loss: lost, Barrier: "b", TimedOut: true}, want: VerdictInconclusive,
			why: []string{lost.String(), "barrier: b", "agent timed out"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Decide(tc.f, tc.c, tc.p)
			if got != tc.want {
				t.Errorf("verdict %s, want %s (reasons %q)", got, tc.want, why)
			}
			lines := strings.Split(why, "\n")
			if why == "" {
				lines = nil
			}
			if len(lines) != len(tc.why) {
				t.Fatalf("reasons %q, want %d lines starting %q", why, len(tc.why), tc.why)
			}
			for i, want := range tc.why {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("reason %d %q, want it to start %q", i, lines[i], want)
				}
			}
		})
	}
}

// A run whose only violations were not kept is a violation, and keeps
// what it did not keep (ci's reports say it: TestNotKeptSaid).
func TestNotKeptViolationsAreFindings(t *testing.T) {
	for _, n := range []NotKept{{ProgramExecs: 5, ProgramViolations: 5}, {FileViolations: 1}, {NetworkViolations: 2}} {
		r := &Result{Mode: baseline.ModeCheck}
		r.AddNotKept(n)
		if got, _ := Decide(r.Findings(), r.Completeness(), Policy{}); got != VerdictViolation {
			t.Errorf("not kept %+v: verdict %s, want violation", n, got)
		}
		if r.NotKept == nil || *r.NotKept != n {
			t.Errorf("not kept %+v, want %+v", r.NotKept, n)
		}
	}
}

// What a result says of itself reaches the verdict: a record run's
// mismatched exec, its unverified names and what it could not learn.
func TestResultCompleteness(t *testing.T) {
	r := &Result{Mode: baseline.ModeRecord, UnverifiedFiles: []string{"x"}, UnverifiedNetwork: []string{"y"},
		ProgramViolations: []ProgramViolation{{ProgramRun: ProgramRun{Path: "/bin/a"}, Mismatch: "ran /bin/b"}}}
	r.AddNotKept(NotKept{LearnedFiles: 1, LearnedNetwork: 1, UnseenExecs: 2})
	c := r.Completeness()
	if len(c.Mismatches) != 1 || c.Mismatches[0] != "/bin/a: ran /bin/b" || c.LearnedFilesNotKept != 1 ||
		c.LearnedNetworkNotKept != 1 || c.UnseenNotKept != 2 || len(c.UnverifiedFiles) != 1 || len(c.UnverifiedNetwork) != 1 {
		t.Errorf("completeness %+v", c)
	}
	// A check run's program violations are findings, not reasons.
	r.Mode = baseline.ModeCheck
	if c := r.Completeness(); len(c.Mismatches) != 0 {
		t.Errorf("check run: mismatches %q", c.Mismatches)
	}
	if f := r.Findings(); f.Programs != 1 {
		t.Errorf("findings %+v, want the program", f)
	}
}

// A new line in Inconclusive separates sysgate's reasons only: one the
// agent put in a name it chose is escaped within its reason.
func TestReasonsEscapeOnlyWithinAReason(t *testing.T) {
	_, why := Decide(Findings{}, Completeness{Barrier: "lost", UnseenExecs: []string{"/tmp/x\ny"}}, Policy{})
	if parts := strings.Split(why, "\n"); len(parts) != 2 || parts[1] != `1 exec ran a program sysgate could not name (/tmp/x\x0ay)` {
		t.Errorf("reasons %q; want two parts, the agent's new line escaped", why)
	}
}
