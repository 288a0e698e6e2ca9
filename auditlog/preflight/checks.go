package preflight

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
)

// failure is a failed check; its Err matches kind, so Run's joined error
// tells callers which sentinel applies.
func failure(name string, kind error, problem, fix string, err error) Check {
	return Check{Name: name, Detail: problem, Fix: fix, Err: &auditctl.Error{Kind: kind, Problem: problem, Fix: fix, Err: err}}
}

// kernelChecks are the kernel features a run needs: seccomp LOG, the
// listener's hang-up, and (optional) a PID namespace per run.
func kernelChecks() []Check {
	var checks []Check
	avail, err := kernel.ReadSysctl("kernel.seccomp.actions_avail")
	switch {
	case err != nil:
		checks = append(checks, failure("seccomp", auditctl.ErrNotSupported, "kernel without seccomp filters (no /proc/sys/kernel/seccomp/actions_avail)",
			"use a kernel with CONFIG_SECCOMP_FILTER=y", err))
	case !slices.Contains(strings.Fields(avail), "log"):
		checks = append(checks, failure("seccomp", auditctl.ErrNotSupported, "kernel has no SECCOMP_RET_LOG action (needs Linux 4.14+)", "use a newer kernel", nil))
	default:
		checks = append(checks, Check{Name: "seccomp", OK: true, Detail: "SECCOMP_RET_LOG available"})
	}
	// The end of a run is the hang-up of its seccomp listener: without it
	// sysgate cannot tell when the last process of a run is gone.
	if err := listener.Supported(); err != nil {
		checks = append(checks, failure("seccomp listener", auditctl.ErrNotSupported, err.Error(),
			"use Linux 5.8+ (SECCOMP_FILTER_FLAG_NEW_LISTENER with hang-up on the last task's exit)", err))
	} else {
		checks = append(checks, Check{Name: "seccomp listener", OK: true, Detail: "hangs up when a run's last process exits"})
	}
	return append(checks, isolationCheck())
}

// isolationCheck: a run's own PID namespace keeps the agent from naming
// processes outside it; without one runs still work, weaker, and say so.
// Without privilege, a user namespace of the run's own gives one.
func isolationCheck() Check {
	const name = "process isolation"
	err := kernel.ProbePidNamespace()
	if err == nil {
		return Check{Name: name, OK: true, Detail: "each run gets a PID namespace and /proc of its own"}
	}
	uerr := kernel.ProbeUserNamespace()
	if uerr == nil {
		return Check{Name: name, OK: true, Detail: "each run gets a PID namespace, /proc and mount fence of its own through a user namespace of its own, as unshare -Ur gives one (no root needed)"}
	}
	return Check{Name: name, OK: true, Warn: true,
		Detail: "unavailable: " + err.Error() + "; " + uerr.Error() + "; every run says so, its agent sees and can signal the machine's processes and read the environment of those of its uid, and sysgate refuses to run while runner credentials are in its environment",
		Fix:    "run sysgate as root (CAP_SYS_ADMIN), or allow unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0, kernel.unprivileged_userns_clone=1)"}
}

// actionsLoggedCheck: without "log" in actions_logged the kernel emits no
// record for a LOG filter.
func actionsLoggedCheck() Check {
	logged, err := auditctl.CheckActionsLogged()
	var notLogged *auditctl.Error
	switch {
	case errors.Is(err, auditctl.ErrActionNotLogged) && errors.As(err, &notLogged):
		return Check{Name: "actions_logged", Detail: notLogged.Problem, Fix: notLogged.Fix, Err: err}
	case err != nil:
		return failure("actions_logged", auditctl.ErrNotSupported, "cannot read kernel.seccomp.actions_logged", "use a kernel with seccomp LOG (4.14+)", err)
	}
	return Check{Name: "actions_logged", OK: true, Detail: logged}
}

// capabilityChecks are the capabilities the audit backend needs.
func capabilityChecks() []Check {
	var checks []Check
	for _, cp := range []struct {
		name string
		c    uintptr
		why  string
	}{
		{"CAP_AUDIT_READ", kernel.CapAuditRead, "to read the audit multicast group"},
		{"CAP_AUDIT_CONTROL", kernel.CapAuditControl, "to raise backlog_limit and lower backlog_wait_time during runs"},
	} {
		has, err := kernel.HasCapability(cp.c)
		if err != nil || !has {
			checks = append(checks, failure(cp.name, auditctl.ErrPermission, "process lacks "+cp.name+" "+cp.why,
				"run as root (sudo sysgate ...)", err))
			continue
		}
		checks = append(checks, Check{Name: cp.name, OK: true, Detail: "present"})
	}
	return checks
}

// namespaceChecks: audit answers only the initial user namespace and
// multicasts only into the initial network namespace. netInit reports
// whether the latter was confirmed, so a failed end-to-end check can
// blame the namespace.
func namespaceChecks() (checks []Check, netInit bool) {
	const containerFix = "run on the host or a VM runner (GitHub-hosted ubuntu-* runners work; `container:` jobs and unprivileged containers do not)"
	if ino, err := kernel.NamespaceInode("user"); err != nil || ino != kernel.InitUserNSInode {
		checks = append(checks, failure("user namespace", auditctl.ErrNamespace, "not in the initial user namespace: audit ignores requests from containers", containerFix, err))
	} else {
		checks = append(checks, Check{Name: "user namespace", OK: true, Detail: "initial"})
	}
	if ino, err := kernel.NamespaceInode("net"); err == nil && ino == kernel.InitNetNSInode {
		netInit = true
		checks = append(checks, Check{Name: "network namespace", OK: true, Detail: "initial"})
	} else {
		checks = append(checks, Check{Name: "network namespace", OK: true, Warn: true,
			Detail: "cannot confirm the initial network namespace (audit multicast reaches only it); the end-to-end check decides"})
	}
	return checks, netInit
}

// auditStatusChecks report the audit settings that decide whether runs
// lose records. bootedWithAudit says the kernel was booted with audit=1,
// which without a daemon fills the hold queue. The status is nil when it
// cannot be read.
func auditStatusChecks(bootedWithAudit bool) (*auditctl.Status, []Check) {
	st, err := auditctl.ReadStatus()
	if err != nil {
		return nil, []Check{{Name: "audit status", Detail: "cannot query audit status", Err: err, Fix: fixOf(err)}}
	}
	checks := []Check{{Name: "audit status", OK: true, Detail: fmt.Sprintf("enabled=%d lost=%d backlog=%d", st.Enabled, st.Lost, st.Backlog)}}
	if st.RateLimit != 0 {
		checks = append(checks, Check{Name: "rate limit", OK: true, Warn: true,
			Detail: fmt.Sprintf("rate_limit=%d records/s: records above it are dropped and the run is inconclusive", st.RateLimit),
			Fix:    "auditctl -r 0"})
	} else {
		checks = append(checks, Check{Name: "rate limit", OK: true, Detail: "none"})
	}
	backlog := fmt.Sprintf("backlog_limit=%d backlog_wait_time=%d", st.BacklogLimit, st.BacklogWaitTime)
	if st.BacklogLimit < auditctl.TunedBacklogLimit || st.BacklogWaitTime != auditctl.TunedBacklogWaitTime {
		backlog += fmt.Sprintf("; runs set %d/%d while active and restore these afterwards", auditctl.TunedBacklogLimit, auditctl.TunedBacklogWaitTime)
	}
	checks = append(checks, Check{Name: "backlog", OK: true, Detail: backlog}, tuningCheck())
	if st.PID != 0 {
		return &st, append(checks, Check{Name: "audit daemon", OK: true, Warn: true,
			Detail: fmt.Sprintf("pid %d receives the unicast stream; sysgate reads the multicast copy and never takes it over", st.PID)})
	}
	checks = append(checks, Check{Name: "audit daemon", OK: true, Detail: "none (sysgate reads the multicast group either way)"})
	if bootedWithAudit {
		checks = append(checks, Check{Name: "hold queue", OK: true, Warn: true,
			Detail: "the kernel was booted with audit=1 and no audit daemon runs: it keeps every record for a daemon in a hold queue of backlog_limit records and, once that is full, counts each further record as lost, so runs that log anything come out inconclusive",
			Fix:    "start the audit daemon (systemctl start auditd), or boot without audit=1"})
	}
	return &st, checks
}
