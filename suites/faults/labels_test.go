package faults_test

import . "github.com/onsi/ginkgo/v2"

// Labels of the fault suite, for ginkgo --label-filter. The two that take
// the whole kernel carry Ginkgo's Serial decorator with them, so ginkgo -p
// runs those specs alone, after the parallel ones (serial_test.go checks
// every spec so labelled is Serial).
var (
	// RequiresAudit: the spec runs an agent under the gate (root, audit,
	// seccomp LOG).
	RequiresAudit = Label("requires-audit")
	// ExclusiveKernel: the spec holds auditctltest.ExclusiveKernel, most
	// often to force a global kernel fault (other runs on the machine
	// wait). Serial: the suite's other specs would wait for it, or see
	// the fault.
	ExclusiveKernel = []any{Label("exclusive-kernel"), Serial}
	// GlobalAuditRule: the spec adds a machine-wide audit rule that drops
	// the records of the suite's sysgate binary. Serial: every other spec
	// of the suite runs that binary.
	GlobalAuditRule = []any{Label("global-audit-rule"), Serial}
	// MachineAddress: the spec puts an address on the machine's lo for
	// its duration (network_test.go: the metadata service's, so a connect
	// to it stays on the machine). Serial: while it is there, every
	// process of the machine that asks that address reaches the spec.
	MachineAddress = []any{Label("machine-address"), Serial}
	// AuditSettings: the spec checks the kernel settings the audit
	// backend's runs hold (the tuning, the run's rules): the notify
	// backend holds none, so the Makefile's notify pass leaves it out.
	AuditSettings = Label("audit-settings")
	// NamesBackend: every spec of the container picks its backends
	// itself (--backend per entry), so the Makefile's notify pass, which
	// sets only the default backend, leaves it out: it would run the
	// same entries a second time.
	NamesBackend = Label("names-backend")
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
