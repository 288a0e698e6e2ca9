package verdict

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/untrusted"
	"github.com/sysgate/sysgate/observe"
)

// Findings are what a run did outside its baselines, by kind, counting
// what was kept and what was only counted (NotKept) alike.
type Findings struct {
	Syscalls, Programs, Files, Network int
	// UnknownABI: calls of an ABI sysgate cannot name; each is outside
	// every baseline.
	UnknownABI uint64
	// ModifiedBaselines and ChangedBaselines: the agent wrote to its own
	// gate, or a gate's baseline changed since it began.
	ModifiedBaselines, ChangedBaselines int
	// AgentFailed: the agent's first process exited non-zero or was
	// killed by a signal.
	AgentFailed bool
}

// Any reports whether anything makes the run a violation.
func (f Findings) Any() bool {
	return f.Syscalls > 0 || f.Programs > 0 || f.Files > 0 || f.Network > 0 || f.UnknownABI > 0 ||
		f.ModifiedBaselines > 0 || f.ChangedBaselines > 0
}

// Completeness is what may have kept a run from seeing everything its
// agent did. Every non-empty part is a reason the run is inconclusive.
type Completeness struct {
	Loss observe.Loss
	// Barrier: the end barrier failed ("" when it passed).
	Barrier string
	// Tracking: following the process tree failed.
	Tracking string
	// Cancelled, TimedOut: the run ended early, and Killed processes
	// besides the agent were killed.
	Cancelled, TimedOut bool
	Killed              int
	// UnseenExecs: execs whose program sysgate could not name (at most
	// MaxKept of them, with UnseenNotKept more).
	UnseenExecs   []string
	UnseenNotKept uint64
	// Mismatches: in record mode, execs that ran another program than
	// they named ("PATH: why"): nothing to learn.
	Mismatches []string
	// UnverifiedFiles: file names not tied to the file the kernel used;
	// LearnedFilesNotKept: accesses a record run could not learn.
	UnverifiedFiles     []string
	LearnedFilesNotKept uint64
	// UnverifiedNetwork: why destinations could not be vouched for;
	// LearnedNetworkNotKept: destinations a record run could not learn.
	UnverifiedNetwork     []string
	LearnedNetworkNotKept uint64
}

// Policy is what the caller asked of the verdict.
type Policy struct {
	// AllowAgentFailure: an agent that failed is judged by its calls
	// alone (VerdictAgentFailed is never given).
	AllowAgentFailure bool
}

// Decide gives a run's verdict, in the order violation > inconclusive >
// agent failed > clean, and the reasons it is inconclusive, one a line.
// The reasons are kept beside a violation: an agent that made a new call
// cannot hide it by flooding the observer afterwards.
func Decide(f Findings, c Completeness, p Policy) (Verdict, string) {
	reasons := c.reasons()
	why := joinReasons(reasons)
	switch {
	case f.Any():
		return VerdictViolation, why
	case len(reasons) > 0:
		return VerdictInconclusive, why
	case f.AgentFailed && !p.AllowAgentFailure:
		return VerdictAgentFailed, why
	default:
		return VerdictClean, why
	}
}

// reasons says why c makes a run inconclusive, in a fixed order.
func (c Completeness) reasons() []string {
	var out []string
	if c.Loss.Any() {
		out = append(out, c.Loss.String())
	}
	if c.Barrier != "" {
		out = append(out, "barrier: "+c.Barrier)
	}
	if c.Tracking != "" {
		out = append(out, "process tracking failed: "+c.Tracking)
	}
	if c.Cancelled {
		out = append(out, fmt.Sprintf("run cancelled; %d processes killed", c.Killed+1))
	}
	if c.TimedOut {
		out = append(out, fmt.Sprintf("agent timed out; the tree was killed (%d processes besides the agent)", c.Killed))
	}
	if len(c.UnseenExecs) > 0 {
		unseen := len(c.UnseenExecs) + int(c.UnseenNotKept)
		out = append(out, fmt.Sprintf("%d %s ran a program sysgate could not name (%s)", unseen,
			plural(unseen, "exec", "execs"), strings.Join(c.UnseenExecs, "; ")))
	}
	out = append(out, c.Mismatches...)
	if n := len(c.UnverifiedFiles); n > 0 {
		shown := c.UnverifiedFiles[:min(n, 5)]
		out = append(out, fmt.Sprintf("%d file %s could not be tied to the file the kernel used (%s): the files gate cannot vouch for them",
			n, plural(n, "name", "names"), untrusted.Terminal(strings.Join(shown, ", "))))
	}
	if c.LearnedFilesNotKept > 0 {
		out = append(out, fmt.Sprintf("%d file accesses past the %d a record run learns: a baseline learnt from part of the run would fail its own check",
			c.LearnedFilesNotKept, MaxLearnedFiles))
	}
	for _, why := range c.UnverifiedNetwork {
		out = append(out, "a destination could not be vouched for: "+untrusted.Terminal(why))
	}
	if c.LearnedNetworkNotKept > 0 {
		out = append(out, fmt.Sprintf("%d destinations past the %d a record run learns: a baseline learnt from part of the run would fail its own check",
			c.LearnedNetworkNotKept, MaxLearnedNetwork))
	}
	return out
}

// joinReasons is the reasons one a line, each with its control characters
// (the agent's names within it) escaped: so a new line in Inconclusive
// only ever separates sysgate's own reasons, which renderers show as
// parts rather than escape as the agent's text.
func joinReasons(reasons []string) string {
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = untrusted.Terminal(r)
	}
	return strings.Join(parts, "\n")
}

// Findings counts r's findings.
func (r *Result) Findings() Findings {
	f := Findings{Syscalls: len(r.Violations), Programs: len(r.ProgramViolations), Files: len(r.FileViolations),
		Network: len(r.NetworkViolations), UnknownABI: r.UnknownABI, ModifiedBaselines: len(r.ModifiedBaselines),
		ChangedBaselines: len(r.ChangedBaselines), AgentFailed: r.AgentFailed()}
	if n := r.NotKept; n != nil {
		f.Programs += int(n.ProgramViolations)
		f.Files += int(n.FileViolations)
		f.Network += int(n.NetworkViolations)
	}
	return f
}

// Completeness is what r itself says about what its run may have missed:
// its loss, and the files, network and (in record mode) programs it
// could not vouch for. The rest (barrier, process tree, unseen execs)
// is the run's to add.
func (r *Result) Completeness() Completeness {
	c := Completeness{Loss: r.Loss, UnverifiedFiles: r.UnverifiedFiles, UnverifiedNetwork: r.UnverifiedNetwork}
	if n := r.NotKept; n != nil {
		c.UnseenNotKept, c.LearnedFilesNotKept, c.LearnedNetworkNotKept = n.UnseenExecs, n.LearnedFiles, n.LearnedNetwork
	}
	if r.Mode == baseline.ModeRecord {
		// A record run learns programs; an exec that ran another
		// program than it named is not something to learn.
		for _, v := range r.ProgramViolations {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("%s: %s", v.Path, v.Mismatch))
		}
	}
	return c
}

func plural[N int | uint64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
