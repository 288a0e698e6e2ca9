package verdict

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// NetworkTouch is one destination the run's processes reached with one
// call, by one program.
type NetworkTouch struct {
	Op baseline.NetOp `json:"op"`
	// Dest is where it went, as entries write it: "api.openai.com:443"
	// when a lookup of the run gave the name, else "127.0.0.2:9",
	// "[::1]:80", "unix:/run/docker.sock", or a name (resolve).
	Dest string `json:"dest"`
	// Addr is the address when Dest is a name ("" otherwise).
	Addr    string `json:"addr,omitempty"`
	Program string `json:"program"` // the caller's executable ("" when unknown)
	// Script is the script the process was started on (an interpreter's
	// "#!" file or argument), when the run saw that exec.
	Script  string `json:"script,omitempty"`
	Syscall string `json:"syscall"` // the first call that did it
	PID     int    `json:"pid"`
	Count   uint64 `json:"count"`
	// Risk and Level: why the entry the destination needs is risky
	// (baseline.NetworkRisk).
	Risk  risk.Class `json:"risk,omitempty"`
	Level risk.Level `json:"level,omitempty"`
	// Denied: enforce refused it (EACCES): the agent tried, nothing left.
	Denied bool `json:"denied,omitempty"`
}

// NetworkViolation is a destination outside the baselines' network section.
type NetworkViolation struct {
	NetworkTouch
	// Has says why, and what the baselines have that comes closest: "not
	// in the baseline; it has 127.0.0.1:{port}".
	Has string `json:"has,omitempty"`
	// File: where the entry would go.
	File string `json:"file,omitempty"`
}

// String is one line for Gomega and logs: "connect 127.0.0.2:9 x1 (not
// in the baseline; it has 127.0.0.1:{port}) by /usr/bin/python3.11 pid
// 41 (connect)".
func (v NetworkViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", v.Op, v.Dest)
	if v.Addr != "" {
		fmt.Fprintf(&b, " (%s)", v.Addr)
	}
	if v.Count > 0 {
		fmt.Fprintf(&b, " x%d", v.Count)
	}
	if v.Has != "" {
		fmt.Fprintf(&b, " (%s)", v.Has)
	}
	if v.Risk != "" {
		fmt.Fprintf(&b, " [%s, %s]", v.Risk, v.Level)
	}
	if v.Program != "" || v.PID != 0 {
		fmt.Fprintf(&b, " by %s", programOrUnknown(v.Program))
		if v.Script != "" {
			fmt.Fprintf(&b, " running %s", v.Script)
		}
		fmt.Fprintf(&b, " pid %d (%s)", v.PID, v.Syscall)
	}
	if v.Denied {
		b.WriteString(", refused")
	}
	if v.File != "" {
		fmt.Fprintf(&b, " -> %s", v.File)
	}
	return untrusted.Terminal(b.String())
}

func programOrUnknown(p string) string {
	if p == "" {
		return "an unknown program"
	}
	return p
}

// ResolvedName is a name the run's processes looked up through its
// recording forwarder, with the addresses the answers gave.
type ResolvedName struct {
	Name  string   `json:"name"`
	Addrs []string `json:"addrs,omitempty"`
	Rcode string   `json:"rcode,omitempty"` // the last answer's, when not NOERROR
}
