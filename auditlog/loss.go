package auditlog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/auditlog/gaps"
)

// Loss counts what a subscription may have missed. Any non-zero field
// makes the run inconclusive: a missed record could have been a
// violation.
type Loss struct {
	// ENOBUFS counts receive errors that report the kernel dropped records
	// because this process's socket buffer was full.
	ENOBUFS uint64 `json:"enobufs,omitempty"`
	// SerialGaps counts audit serial numbers that never arrived (records
	// emitted by the kernel but not delivered to this socket).
	SerialGaps uint64 `json:"serial_gaps,omitempty"`
	// GapSerials names the latest of those serial numbers (up to 16 runs
	// of them), to look up in other audit readers' logs.
	GapSerials []gaps.SerialRange `json:"gap_serials,omitempty"`
	// KernelLost is the increase of the kernel's audit "lost" counter:
	// records dropped at the source (backlog full, rate limit, memory).
	KernelLost uint64 `json:"kernel_lost,omitempty"`
	// Malformed counts AUDIT_SECCOMP records the parser rejected while
	// subscribed: whose they were is unknown, so each may have been this
	// run's. MalformedSample is the latest one (at most 512 bytes).
	Malformed       uint64 `json:"malformed,omitempty"`
	MalformedSample string `json:"malformed_sample,omitempty"`
}

// Any reports whether anything was lost.
func (l Loss) Any() bool {
	return l.ENOBUFS != 0 || l.SerialGaps != 0 || l.KernelLost != 0 || l.Malformed != 0
}

// Add returns the sum of l and o.
func (l Loss) Add(o Loss) Loss {
	sample := l.MalformedSample
	if o.MalformedSample != "" {
		sample = o.MalformedSample
	}
	return Loss{ENOBUFS: l.ENOBUFS + o.ENOBUFS, SerialGaps: l.SerialGaps + o.SerialGaps, KernelLost: l.KernelLost + o.KernelLost,
		GapSerials: append(slices.Clone(l.GapSerials), o.GapSerials...), Malformed: l.Malformed + o.Malformed, MalformedSample: sample}
}

// String describes the loss and its causes for a report.
func (l Loss) String() string {
	if !l.Any() {
		return "no audit records lost"
	}
	var parts []string
	if l.ENOBUFS != 0 {
		parts = append(parts, fmt.Sprintf("%d receive overruns (ENOBUFS: the audit socket buffer was full)", l.ENOBUFS))
	}
	if l.SerialGaps != 0 {
		p := fmt.Sprintf("%d audit records never delivered (serial number gaps", l.SerialGaps)
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
		parts = append(parts, fmt.Sprintf("%d audit records dropped by the kernel (status lost counter; backlog_limit, backlog_wait_time, rate_limit, or a full hold queue with audit=1 and no audit daemon: sysgate doctor tells which)", l.KernelLost))
	}
	if l.Malformed != 0 {
		parts = append(parts, fmt.Sprintf("%d seccomp audit records sysgate could not parse (latest: %q)", l.Malformed, l.MalformedSample))
	}
	return "audit records lost: " + strings.Join(parts, "; ")
}
