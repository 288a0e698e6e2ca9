package faults_test

import . "github.com/onsi/ginkgo/v2"

// Labels of the fault suite, for ginkgo --label-filter.
var (
	// RequiresAudit: the spec runs an agent under the gate (root, audit,
	// seccomp LOG).
	RequiresAudit = Label("requires-audit")
	// ExclusiveKernel: the spec forces a global kernel fault while holding
	// auditctltest.ExclusiveKernel (other runs on the machine wait).
	ExclusiveKernel = Label("exclusive-kernel")
	// Loss: audit records go missing on the way to sysgate.
	Loss = Label("loss")
	// Escape: the agent tries to get a syscall past the gate.
	Escape = Label("escape")
	// Fence: a root agent reaches for the observer or the kernel's knobs.
	Fence = Label("fence")
	// Inherit: the agent starts with something it did not ask for (a
	// descriptor, a credential, the terminal, a file sysgate writes).
	Inherit = Label("inherit")
	// Crash: the harness itself dies.
	Crash = Label("crash")
	// BadInput: a malformed baseline, a missing agent, a timeout.
	BadInput = Label("bad-input")
)
