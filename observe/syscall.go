package observe

import "github.com/sysgate/sysgate/internal/scmp"

// Syscall is one call outside the baseline's allowed set, as every
// backend reports it: the audit backend from an AUDIT_SECCOMP record
// (auditlog/record.SeccompEvent.Syscall), the notify backend from a
// listener's notification. What only one backend knows (an audit serial,
// the session id, the instruction pointer) stays with that backend.
type Syscall struct {
	Arch   scmp.Arch // 0 when the arch is unknown to sysgate
	Number int       // the syscall number within Arch
	// Name is the syscall's name, its argument class where the backend
	// read one ("socket(AF_INET)"), or the decimal number of a call
	// sysgate cannot name.
	Name string
	PID  int    // thread group id in the initial PID namespace; 0 when unknown
	Comm string // thread name
	Exe  string // executable path; "" when unknown
	// Action is the seccomp action that reported the call
	// (SECCOMP_RET_LOG, _USER_NOTIF, _ERRNO, ...).
	Action uint32
}
