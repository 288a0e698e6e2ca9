package verdict

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// FileTouch is one file the run's processes touched with one operation.
type FileTouch struct {
	Path    string          `json:"path"`
	Op      baseline.FileOp `json:"op"`
	Syscall string          `json:"syscall"` // the first call that did it
	PID     int             `json:"pid"`     // its process
	Exe     string          `json:"exe"`
	Count   uint64          `json:"count"`
	// Sensitive and Level: the sensitive-path table's reason and level
	// when the path is in it for this operation ("" otherwise).
	Sensitive string `json:"sensitive,omitempty"`
	Level     string `json:"level,omitempty"`
	// Denied: enforce's Landlock domain refused it (EACCES): the agent
	// tried it and the kernel did not do it.
	Denied bool `json:"denied,omitempty"`
}

// FileViolation is a file touched outside the baselines' files section.
type FileViolation struct {
	FileTouch
	// Has is what the baselines allow that comes closest ("{workspace}/**:
	// read"), "" when nothing does.
	Has string `json:"has,omitempty"`
	// Fix is the entry that allows it, as record would write it
	// (baseline.FixEntry): "{workspace}/**", never the checkout's path or
	// a per-run random name. "" in results of older versions.
	Fix string `json:"fix,omitempty"`
	// File and Line: where the entry would go.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// String is one line for Gomega and logs: "read /home/u/.ssh/id_rsa
// (sensitive: ssh key, high) x1 by /usr/bin/python3.11 (pid 41), not in
// the baselines; they have {workspace}/**: read".
func (v FileViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", v.Op, v.Path)
	if v.Sensitive != "" {
		fmt.Fprintf(&b, " (sensitive: %s, %s)", v.Sensitive, v.Level)
	}
	fmt.Fprintf(&b, " x%d by %s (pid %d, %s)", v.Count, v.Exe, v.PID, v.Syscall)
	if v.Has != "" {
		fmt.Fprintf(&b, ", not in the baselines; they have %s", v.Has)
	} else {
		b.WriteString(", not in the baselines")
	}
	if v.File != "" {
		fmt.Fprintf(&b, " -> %s:%d", v.File, v.Line)
	}
	return untrusted.Terminal(b.String())
}
