package auditlog

import (
	"os"
	"strings"
)

const actionsLoggedPath = "/proc/sys/kernel/seccomp/actions_logged"

// ReadActionsLogged returns kernel.seccomp.actions_logged.
func ReadActionsLogged() (string, error) {
	b, err := os.ReadFile(actionsLoggedPath)
	if err != nil {
		return "", &Error{Kind: ErrNotSupported, Problem: "cannot read " + actionsLoggedPath + " (kernel without seccomp LOG?)", Err: err}
	}
	return strings.TrimSpace(string(b)), nil
}

// SetActionsLogged writes kernel.seccomp.actions_logged (tests holding
// ExclusiveKernel use it to force the "log not logged" fault).
func SetActionsLogged(v string) error {
	return os.WriteFile(actionsLoggedPath, []byte(v+"\n"), 0o644)
}
