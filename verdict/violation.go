package verdict

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// Violation is one syscall outside the baseline, with the first process
// that made it and where in the baseline it would go.
type Violation struct {
	Arch    scmp.Arch  `json:"arch"`
	Syscall string     `json:"syscall"` // name, or the decimal number libseccomp cannot name
	Number  int        `json:"number"`
	Count   uint64     `json:"count"`
	Risk    risk.Class `json:"risk"`
	Level   risk.Level `json:"level,omitempty"`
	// Allowed: for an argument class ("socket(AF_INET)"), the classes of
	// its syscall the baseline allows ("socket(AF_UNIX)"), none when it
	// allows no call of it.
	Allowed []string `json:"allowed,omitempty"`
	PID     int      `json:"pid"`
	Exe     string   `json:"exe"`
	Comm    string   `json:"comm"`
	File    string   `json:"file"` // the baseline file to add it to, "" without one
	Line    int      `json:"line"`
	// Also lists the other programs (by executable, in the order first
	// seen) that made the syscall in this run; More counts those past the
	// list's bound. PID/Exe/Comm above made it first.
	Also []Caller `json:"also,omitempty"`
	More int      `json:"more,omitempty"`
	// AgentStart: the first call was the execve that started the agent.
	// The launcher makes it in sysgate's image (the filter is its last
	// step before execve), so Exe and Comm name sysgate's executable, not
	// a program of the agent; renderers name it as the agent's start.
	AgentStart bool `json:"agent_start,omitempty"`
}

// Caller is a program that made a syscall: its first process and how many
// times its processes made the call.
type Caller struct {
	PID   int    `json:"pid"`
	Exe   string `json:"exe"`
	Comm  string `json:"comm"`
	Count uint64 `json:"count"`
}

// Process is one process of the run that made logged syscalls.
type Process struct {
	PID    int    `json:"pid"`
	Exe    string `json:"exe"`
	Comm   string `json:"comm"`
	Events uint64 `json:"events"`
}

// Violations is a list that prints as a readable table in Gomega
// failure messages.
type Violations []Violation

// GomegaString renders the list for Gomega's format package.
func (vs Violations) GomegaString() string { return vs.String() }

// String lists one violation a line: arch, syscall, risk, count, process,
// baseline position.
func (vs Violations) String() string {
	if len(vs) == 0 {
		return "(no syscalls outside the baseline)"
	}
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// String is "x86_64 socket [risk] x3 by /usr/bin/python3 (python3, pid 42) -> add at base.yaml:17".
func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", v.Arch, v.Syscall)
	if v.Syscall != fmt.Sprint(v.Number) {
		fmt.Fprintf(&b, " (%d)", v.Number)
	} else {
		b.WriteString(" (unknown to libseccomp)")
	}
	if v.Risk.Risky() {
		fmt.Fprintf(&b, " [risky: %s]", v.RiskLabel())
	}
	if note := v.ClassNote(); note != "" {
		b.WriteString(": " + note + ";")
	}
	if v.AgentStart {
		fmt.Fprintf(&b, " x%d by the agent's start (its execve, pid %d)", v.Count, v.PID)
	} else {
		fmt.Fprintf(&b, " x%d by %s (%s, pid %d)", v.Count, v.Exe, v.Comm, v.PID)
	}
	for i, c := range v.Also {
		sep := ", "
		if i == 0 {
			sep = "; also "
		}
		fmt.Fprintf(&b, "%s%s (%s, pid %d) x%d", sep, c.Exe, c.Comm, c.PID, c.Count)
	}
	if v.More > 0 {
		fmt.Fprintf(&b, " and %d more", v.More)
	}
	if v.File != "" {
		fmt.Fprintf(&b, " -> %s:%d", v.File, v.Line)
	}
	return untrusted.Terminal(b.String()) // one line of names the agent chose
}

// RiskLabel is "namespace", or "namespace, high" for a high risk.
func (v Violation) RiskLabel() string { return v.Risk.Label(v.Level) }

// ClassNote says, for an argument class, what the baseline allows of its
// syscall: "the baseline allows socket(AF_UNIX)", "the baseline allows no
// socket"; "" for a syscall without classes.
func (v Violation) ClassNote() string {
	name, class := argclass.SplitKey(v.Syscall)
	if class == "" {
		return ""
	}
	if len(v.Allowed) == 0 {
		return "the baseline allows no " + name
	}
	return "the baseline allows " + strings.Join(v.Allowed, ", ")
}

// SortViolations orders by arch, then syscall, so reports and goldens are stable.
func SortViolations(vs []Violation) {
	sort.Slice(vs, func(i, j int) bool {
		if a, b := vs[i].Arch.String(), vs[j].Arch.String(); a != b {
			return a < b
		}
		return vs[i].Syscall < vs[j].Syscall
	})
}

// ViolationsAgainst diffs r's observation against p, attributing each new
// syscall to the process that made it first (known to results from a
// run; a result decoded from JSON knows it only for its own violations).
func (r *Result) ViolationsAgainst(p *baseline.Profile) Violations {
	who := r.Attributions
	if who == nil {
		who = map[CallKey]Attribution{}
		for _, v := range r.Violations {
			who[CallKey{v.Arch, v.Syscall}] = Attribution{Number: v.Number, PID: v.PID, Exe: v.Exe, Comm: v.Comm,
				Also: v.Also, More: v.More, AgentStart: v.AgentStart}
		}
	}
	return Attribute(baseline.Diff(p, r.Observed).New, who).WithAllowed(p)
}

// CallKey names a syscall, or an argument class of one, on an arch.
type CallKey struct {
	Arch    scmp.Arch
	Syscall string
}

// Attribution is what a run's events say about who made a syscall: the
// first process, the other programs and how many more there were.
type Attribution struct {
	Number     int
	PID        int
	Exe, Comm  string
	Also       []Caller
	More       int
	AgentStart bool
}

// Attribute builds violations from findings and who made them, sorted.
func Attribute(news []baseline.Finding, who map[CallKey]Attribution) Violations {
	out := make(Violations, 0, len(news))
	for _, f := range news {
		call := who[CallKey{f.Arch, f.Syscall}]
		v := Violation{
			Arch: f.Arch, Syscall: f.Syscall, Number: call.Number, Count: f.Count,
			Risk: risk.Of(f.Syscall), Level: risk.LevelOf(f.Syscall), PID: call.PID, Exe: call.Exe, Comm: call.Comm,
			AgentStart: call.AgentStart, File: f.File, Line: f.Line,
		}
		if len(call.Also) > 0 {
			v.Also = append([]Caller(nil), call.Also...)
			v.More = call.More
		}
		out = append(out, v)
	}
	SortViolations(out)
	return out
}

// WithAllowed fills in, for each class violation, the classes of its
// syscall that p allows.
func (vs Violations) WithAllowed(p *baseline.Profile) Violations {
	for i, v := range vs {
		if name, class := argclass.SplitKey(v.Syscall); class != "" {
			vs[i].Allowed = p.Classes(v.Arch, name)
		}
	}
	return vs
}
