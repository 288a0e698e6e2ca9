package record

import (
	"time"

	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
)

// TypeSeccomp is the audit record type of a SECCOMP_RET_LOG record
// (AUDIT_SECCOMP).
const TypeSeccomp = 1326

// SeccompEvent is one AUDIT_SECCOMP record: a syscall that a seccomp
// filter logged. The kernel reports no arguments and no parent pid.
type SeccompEvent struct {
	Serial    uint64    `json:"serial"`     // audit serial number
	Time      time.Time `json:"time"`       // record time (millisecond resolution)
	Ses       uint32    `json:"ses"`        // audit session id the run tagged its tree with
	PID       int       `json:"pid"`        // thread group id in the initial pid namespace
	UID       uint32    `json:"uid"`        // real uid
	Arch      scmp.Arch `json:"arch"`       // 0 when the audit arch is unknown to sysgate
	AuditArch uint32    `json:"audit_arch"` // raw AUDIT_ARCH_* value
	Number    int       `json:"number"`     // syscall number within Arch
	Name      string    `json:"name"`       // syscall name, or the decimal number if libseccomp cannot name it
	Compat    bool      `json:"compat"`     // a 32-bit syscall from a 64-bit kernel's compat layer
	Comm      string    `json:"comm"`       // thread name, hex-decoded
	Exe       string    `json:"exe"`        // executable path, hex-decoded; "" if the kernel had none
	IP        uint64    `json:"ip"`         // instruction pointer of the syscall
	Code      uint32    `json:"code"`       // seccomp action that logged it (SECCOMP_RET_*)
}

// Syscall is the event as every backend reports it (observe.Syscall):
// what a run's collector needs, without audit's own fields.
func (ev *SeccompEvent) Syscall() *observe.Syscall {
	return &observe.Syscall{Arch: ev.Arch, Number: ev.Number, Name: ev.Name, PID: ev.PID, Comm: ev.Comm, Exe: ev.Exe, Action: ev.Code}
}
