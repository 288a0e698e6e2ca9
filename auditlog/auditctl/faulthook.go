package auditctl

import "github.com/sysgate/sysgate/auditlog/auditctl/internal/faulthook"

// The knobs fault tests use to break the kernel's audit on purpose; they
// reach them through package auditctltest.
func init() {
	faulthook.ExclusiveKernel = exclusiveKernel
	faulthook.SetBacklog = forceBacklog
	faulthook.SetEnabled = forceEnabled
	faulthook.SetActionsLogged = setActionsLogged
}
