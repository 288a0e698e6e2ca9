package observe

import (
	"strings"
	"testing"
)

func TestLossString(t *testing.T) {
	if (Loss{}).Any() || (Loss{}).String() != "no audit records lost" {
		t.Errorf("zero loss: %v", Loss{})
	}
	if (Loss{OtherGaps: 5}).Any() {
		t.Errorf("other processes' gaps make a run inconclusive")
	}
	l := Loss{ENOBUFS: 2, SerialGaps: 40, KernelLost: 3}
	want := "audit records lost: 2 receive overruns (ENOBUFS: the audit socket buffer was full); 40 audit records never delivered (serial number gaps between the run's start and end); 3 audit records dropped by the kernel while the run was open (the status lost counter counts every process's records: backlog_limit, backlog_wait_time, rate_limit, or a full hold queue with audit=1 and no audit daemon; sysgate doctor tells which); a drop at the backlog limit takes no serial number, so whose they were is unknown and the run's may be among them"
	if !l.Any() || l.String() != want {
		t.Errorf("got %q", l.String())
	}
	l = Loss{SerialGaps: 2, GapSerials: []SerialRange{{Lo: 17, Hi: 17}, {Lo: 19, Hi: 21}}}
	if s := l.String(); !strings.Contains(s, "2 audit records never delivered (serial number gaps between the run's start and end: 17, 19-21)") {
		t.Errorf("String() = %q", s)
	}
	// The machine's loss alone is said to be the machine's, and stays
	// inconclusive: a backlog drop has no serial to clear the run.
	l = Loss{KernelLost: 2, OtherGaps: 2}
	if s := l.String(); !l.Any() || !strings.HasPrefix(s, "audit records lost on this machine, not necessarily the run's: 2 audit records dropped by the kernel") ||
		!strings.HasSuffix(s, "; 2 serial numbers outside the run never arrived: other processes' records, lost to the machine") {
		t.Errorf("machine loss: %q", s)
	}
}
