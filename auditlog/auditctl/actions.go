package auditctl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/internal/kernel"
)

const actionsLogged = "kernel.seccomp.actions_logged"

// ReadActionsLogged returns kernel.seccomp.actions_logged.
func ReadActionsLogged() (string, error) {
	v, err := kernel.ReadSysctl(actionsLogged)
	if err != nil {
		return "", &Error{Kind: ErrNotSupported, Problem: "cannot read /proc/sys/kernel/seccomp/actions_logged (kernel without seccomp LOG?)", Err: err}
	}
	return v, nil
}

// setActionsLogged writes kernel.seccomp.actions_logged: ExclusiveKernel's
// release restores it, and fault tests (auditctltest) force it.
func setActionsLogged(v string) error { return kernel.WriteSysctl(actionsLogged, v) }

// CheckActionsLogged returns kernel.seccomp.actions_logged and, when it
// lacks "log" (so SECCOMP_RET_LOG produces no records), a *Error matching
// ErrActionNotLogged with the sysctl that fixes it. An unreadable setting
// is a *Error matching ErrNotSupported.
func CheckActionsLogged() (string, error) {
	logged, err := ReadActionsLogged()
	if err != nil || slices.Contains(strings.Fields(logged), "log") {
		return logged, err
	}
	return logged, &Error{Kind: ErrActionNotLogged, Problem: fmt.Sprintf("%s is %q: logged syscalls produce no audit records", actionsLogged, logged),
		Fix: fmt.Sprintf("sudo sysctl -w %s=%q", actionsLogged, strings.TrimSpace(logged+" log"))}
}
