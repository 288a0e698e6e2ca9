// Package labels names the Ginkgo labels of the embedded suites, in one
// place, so a label filter (ginkgo --label-filter) and the specs agree on
// spelling.
package labels

import . "github.com/onsi/ginkgo/v2"

var (
	// RequiresAudit: the spec runs an agent under the gate, which needs root
	// and the kernel's audit and seccomp LOG support.
	RequiresAudit = Label("requires-audit")
	// Runtime: the spec gates a bare runtime (python3, node, go) against
	// its runtime base under suites/baselines/runtimes.
	Runtime = Label("runtime")
	// Bite: the spec proves the gate fails on new behaviour. Record mode
	// leaves these out: they must never teach a baseline a violation.
	Bite = Label("bite")
	// Network: the spec starts a loopback server for the agent.
	Network = Label("network")
)

// Agent labels the specs of one agent ("python", "mcp-filesystem", ...).
func Agent(name string) Labels { return Label("agent:" + name) }
