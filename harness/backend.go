package harness

import (
	"bytes"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
	"github.com/sysgate/sysgate/verdict"
)

// WithBackend picks the backend (default BackendAuto).
func WithBackend(b verdict.Backend) Option { return func(c *runConfig) { c.backend = b } }

// AuditUnavailable says why the audit backend cannot run in this process
// ("" when it can as far as privileges go): it needs CAP_AUDIT_CONTROL
// and CAP_AUDIT_READ in the initial user namespace. Whether the kernel
// has audit at all is found when the run opens the audit socket.
func AuditUnavailable() string {
	if !InitialUserNamespace() {
		return "this process is in a user namespace (a container, unshare -U): audit needs the initial one"
	}
	if _, err := os.Stat("/proc/self/loginuid"); err != nil {
		return "the kernel has no audit syscall support (no /proc/self/loginuid: CONFIG_AUDITSYSCALL)"
	}
	for _, c := range []struct {
		cap  uintptr
		name string
	}{{capAuditControl, "CAP_AUDIT_CONTROL"}, {kernel.CapAuditRead, "CAP_AUDIT_READ"}} {
		if ok, err := kernel.HasCapability(c.cap); err != nil || !ok {
			return "no " + c.name + " (not root)"
		}
	}
	return ""
}

// InitialUserNamespace reports whether this process is in the initial
// user namespace, whose uid_map maps every id to itself.
func InitialUserNamespace() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	return strings.Join(strings.Fields(string(bytes.TrimSpace(b))), " ") == "0 0 4294967295"
}

// NotifyUnavailable says why the notify backend cannot run here ("" when
// it can): it asks the kernel for a listener (Linux 5.0+) that hangs up
// when its last task is gone (5.8+).
func NotifyUnavailable() string {
	if err := listener.Supported(); err != nil {
		return err.Error()
	}
	return ""
}

// ResolveBackend is the one automatic choice: b itself unless it is
// auto, else audit where privileges allow and notify where they do not,
// with the reason.
func ResolveBackend(b verdict.Backend) (verdict.Backend, string) {
	switch b {
	case verdict.BackendAudit, verdict.BackendNotify:
		return b, ""
	}
	if why := AuditUnavailable(); why != "" {
		return verdict.BackendNotify, "auto: audit unavailable: " + why
	}
	return verdict.BackendAudit, ""
}

// pickBackend resolves the run's backend (see ResolveBackend).
func (c *runConfig) pickBackend() (verdict.Backend, string) { return ResolveBackend(c.backend) }

// capSysAdmin and capSetpcap: the fence mounts and the capability drop
// need them (in the process's own user namespace).
const (
	capSysAdmin = unix.CAP_SYS_ADMIN
	capSetpcap  = unix.CAP_SETPCAP
)

func hasCap(c uintptr) bool {
	ok, err := kernel.HasCapability(c)
	return err == nil && ok
}
