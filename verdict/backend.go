package verdict

import "fmt"

// Backend is how a run sees the syscalls outside its baseline.
type Backend string

// Backends.
const (
	// BackendAuto picks audit where it is available, else notify, and
	// the Result says why (BackendNote).
	BackendAuto Backend = "auto"
	// BackendAudit: the filter logs (SECCOMP_RET_LOG) and sysgate reads
	// the kernel's AUDIT_SECCOMP records over netlink. Needs root in the
	// initial user namespace.
	BackendAudit Backend = "audit"
	// BackendNotify: the filter hands each call outside the baseline to
	// sysgate's seccomp listener (SECCOMP_RET_USER_NOTIF), which records
	// it and answers: continue (record, check) or the errno (enforce).
	// Needs no privilege: Linux 5.0+, and 5.8+ for the end of the run.
	BackendNotify Backend = "notify"
)

// Backends lists the backend names a user may pick.
var Backends = []Backend{BackendAuto, BackendAudit, BackendNotify}

// ParseBackend reads a backend name ("" is auto).
func ParseBackend(s string) (Backend, error) {
	if s == "" {
		return BackendAuto, nil
	}
	for _, b := range Backends {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("unknown backend %q (one of auto, audit, notify)", s)
}
