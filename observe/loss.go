package observe

import (
	"fmt"
	"slices"
	"strings"
)

// Loss counts what an observer may have missed (the audit backend's
// counters; Loss is this type). Any non-zero field
// but OtherGaps makes the run inconclusive: a missed record could have
// been a violation.
type Loss struct {
	// ENOBUFS counts receive errors that report the kernel dropped records
	// because this process's socket buffer was full.
	ENOBUFS uint64 `json:"enobufs,omitempty"`
	// SerialGaps counts audit serial numbers between the run's start
	// marker and its end barrier that never arrived: records the kernel
	// numbered after the run began and before it ended, so possibly the
	// run's, that never reached this socket.
	SerialGaps uint64 `json:"serial_gaps,omitempty"`
	// GapSerials names the latest of those serial numbers (up to 16 runs
	// of them), to look up in other audit readers' logs.
	GapSerials []SerialRange `json:"gap_serials,omitempty"`
	// OtherGaps counts serial numbers declared missing while the run was
	// open that lie outside its markers: taken before the run started or
	// after it ended, so other processes' records. It never makes a run
	// inconclusive; a report names it beside the kernel's counter.
	OtherGaps uint64 `json:"other_gaps,omitempty"`
	// KernelLost is the increase of the kernel's audit "lost" counter
	// while the run was open: records of any process on the machine
	// dropped at the source (backlog full, rate limit, memory, a full
	// hold queue). Drops at the backlog limit take no serial number, so
	// whose they were is unknown, and the run's may be among them.
	KernelLost uint64 `json:"kernel_lost,omitempty"`
	// Malformed counts AUDIT_SECCOMP records the parser rejected while
	// subscribed that may have been this run's: of its audit session, or
	// of one that cannot be read (record.Session). MalformedSample is the
	// latest one (at most 512 bytes).
	Malformed       uint64 `json:"malformed,omitempty"`
	MalformedSample string `json:"malformed_sample,omitempty"`
}

// Any reports whether anything that may have been the run's was lost.
func (l Loss) Any() bool {
	return l.ENOBUFS != 0 || l.SerialGaps != 0 || l.KernelLost != 0 || l.Malformed != 0
}

// MachineOnly reports whether the only loss is the kernel's machine-wide
// counter: nothing tied to the run or to sysgate's socket.
func (l Loss) MachineOnly() bool {
	return l.KernelLost != 0 && l.ENOBUFS == 0 && l.SerialGaps == 0 && l.Malformed == 0
}

// Add returns the sum of l and o.
func (l Loss) Add(o Loss) Loss {
	sample := l.MalformedSample
	if o.MalformedSample != "" {
		sample = o.MalformedSample
	}
	return Loss{ENOBUFS: l.ENOBUFS + o.ENOBUFS, SerialGaps: l.SerialGaps + o.SerialGaps, KernelLost: l.KernelLost + o.KernelLost,
		GapSerials: append(slices.Clone(l.GapSerials), o.GapSerials...), OtherGaps: l.OtherGaps + o.OtherGaps,
		Malformed: l.Malformed + o.Malformed, MalformedSample: sample}
}

// String describes the loss and its causes for a report; a loss of the
// machine alone is said to be the machine's.
func (l Loss) String() string {
	if !l.Any() {
		return "no audit records lost"
	}
	var parts []string
	if l.ENOBUFS != 0 {
		parts = append(parts, fmt.Sprintf("%d receive overruns (ENOBUFS: the audit socket buffer was full)", l.ENOBUFS))
	}
	if l.SerialGaps != 0 {
		p := fmt.Sprintf("%d audit records never delivered (serial number gaps between the run's start and end", l.SerialGaps)
		if len(l.GapSerials) > 0 {
			names := make([]string, len(l.GapSerials))
			for i, r := range l.GapSerials {
				names[i] = r.String()
			}
			p += ": " + strings.Join(names, ", ")
		}
		parts = append(parts, p+")")
	}
	if l.KernelLost != 0 {
		p := fmt.Sprintf("%d audit records dropped by the kernel while the run was open (the status lost counter counts every process's records: backlog_limit, backlog_wait_time, rate_limit, or a full hold queue with audit=1 and no audit daemon; sysgate doctor tells which); a drop at the backlog limit takes no serial number, so whose they were is unknown and the run's may be among them", l.KernelLost)
		if l.OtherGaps != 0 {
			p += fmt.Sprintf("; %d serial numbers outside the run never arrived: other processes' records, lost to the machine", l.OtherGaps)
		}
		parts = append(parts, p)
	}
	if l.Malformed != 0 {
		parts = append(parts, fmt.Sprintf("%d seccomp audit records sysgate could not parse, of the run's audit session or of none it could read (latest: %q)", l.Malformed, l.MalformedSample))
	}
	if l.MachineOnly() {
		return "audit records lost on this machine, not necessarily the run's: " + strings.Join(parts, "; ")
	}
	return "audit records lost: " + strings.Join(parts, "; ")
}

// SerialRange is a run of audit serial numbers, Lo to Hi inclusive.
type SerialRange struct {
	Lo uint64 `json:"lo"`
	Hi uint64 `json:"hi"`
}

func (r SerialRange) String() string {
	if r.Lo == r.Hi {
		return fmt.Sprint(r.Lo)
	}
	return fmt.Sprintf("%d-%d", r.Lo, r.Hi)
}
