package preflight

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
)

// Check is one preflight finding.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Warn   bool   `json:"warn,omitempty"` // OK but worth knowing (a rate limit, auditd present)
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
	Err    error  `json:"-"` // an *auditctl.Error matching a sentinel when !OK
}

// Report is what `sysgate doctor` prints.
type Report struct {
	Checks []Check          `json:"checks"`
	Status *auditctl.Status `json:"status,omitempty"`
}

// Failed returns the checks that did not pass.
func (r *Report) Failed() []Check {
	return slices.DeleteFunc(slices.Clone(r.Checks), func(c Check) bool { return c.OK })
}

// Run checks that this process can observe seccomp LOG records: kernel
// support, actions_logged, capabilities, namespaces, audit settings, and
// finally a real sentinel record through a stream of its own. The error
// joins an *auditctl.Error per failed check (match with errors.Is against
// auditctl.ErrNotSupported, ErrPermission, ErrNamespace,
// ErrActionNotLogged).
func Run() (*Report, error) {
	r := &Report{}
	add := func(c Check) { r.Checks = append(r.Checks, c) }
	fail := func(name string, kind error, problem, fix string, err error) {
		add(Check{Name: name, Detail: problem, Fix: fix, Err: &auditctl.Error{Kind: kind, Problem: problem, Fix: fix, Err: err}})
	}

	avail, err := kernel.ReadSysctl("kernel.seccomp.actions_avail")
	switch {
	case err != nil:
		fail("seccomp", auditctl.ErrNotSupported, "kernel without seccomp filters (no /proc/sys/kernel/seccomp/actions_avail)",
			"use a kernel with CONFIG_SECCOMP_FILTER=y", err)
	case !slices.Contains(strings.Fields(avail), "log"):
		fail("seccomp", auditctl.ErrNotSupported, "kernel has no SECCOMP_RET_LOG action (needs Linux 4.14+)", "use a newer kernel", nil)
	default:
		add(Check{Name: "seccomp", OK: true, Detail: "SECCOMP_RET_LOG available"})
	}
	// The end of a run is the hang-up of its seccomp listener: without it
	// sysgate cannot tell when the last process of a run is gone.
	if err := listener.Supported(); err != nil {
		fail("seccomp listener", auditctl.ErrNotSupported, err.Error(),
			"use Linux 5.8+ (SECCOMP_FILTER_FLAG_NEW_LISTENER with hang-up on the last task's exit)", err)
	} else {
		add(Check{Name: "seccomp listener", OK: true, Detail: "hangs up when a run's last process exits"})
	}
	// A run's own PID namespace keeps the agent from naming processes
	// outside it; without one runs still work, weaker, and say so.
	// Without privilege, a user namespace of the run's own gives one.
	if err := kernel.ProbePidNamespace(); err == nil {
		add(Check{Name: "process isolation", OK: true, Detail: "each run gets a PID namespace and /proc of its own"})
	} else if uerr := kernel.ProbeUserNamespace(); uerr == nil {
		add(Check{Name: "process isolation", OK: true, Detail: "each run gets a PID namespace, /proc and mount fence of its own, in a user namespace of its own (no root needed)"})
	} else {
		add(Check{Name: "process isolation", OK: true, Warn: true,
			Detail: "unavailable: " + err.Error() + "; " + uerr.Error() + "; every run says so, its agent sees and can signal the machine's processes and read the environment of those of its uid, and sysgate refuses to run while runner credentials are in its environment",
			Fix:    "run sysgate as root (CAP_SYS_ADMIN), or allow unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0, kernel.unprivileged_userns_clone=1)"})
	}

	cmdline, cmdlineErr := kernel.BootCmdline()
	if cmdlineErr == nil && slices.Contains(strings.Fields(cmdline), "audit=0") {
		fail("audit boot option", auditctl.ErrNotSupported, "the kernel was booted with audit=0: no audit records are emitted at all",
			"remove audit=0 from the kernel command line and reboot", nil)
	}

	logged, err := auditctl.CheckActionsLogged()
	var notLogged *auditctl.Error
	switch {
	case errors.Is(err, auditctl.ErrActionNotLogged) && errors.As(err, &notLogged):
		add(Check{Name: "actions_logged", Detail: notLogged.Problem, Fix: notLogged.Fix, Err: err})
	case err != nil:
		fail("actions_logged", auditctl.ErrNotSupported, "cannot read kernel.seccomp.actions_logged", "use a kernel with seccomp LOG (4.14+)", err)
	default:
		add(Check{Name: "actions_logged", OK: true, Detail: logged})
	}

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
			fail(cp.name, auditctl.ErrPermission, "process lacks "+cp.name+" "+cp.why,
				"run as root (sudo sysgate ...)", err)
			continue
		}
		add(Check{Name: cp.name, OK: true, Detail: "present"})
	}

	const containerFix = "run on the host or a VM runner (GitHub-hosted ubuntu-* runners work; `container:` jobs and unprivileged containers do not)"
	if ino, err := kernel.NamespaceInode("user"); err != nil || ino != kernel.InitUserNSInode {
		fail("user namespace", auditctl.ErrNamespace, "not in the initial user namespace: audit ignores requests from containers", containerFix, err)
	} else {
		add(Check{Name: "user namespace", OK: true, Detail: "initial"})
	}
	netInit := false
	if ino, err := kernel.NamespaceInode("net"); err == nil && ino == kernel.InitNetNSInode {
		netInit = true
		add(Check{Name: "network namespace", OK: true, Detail: "initial"})
	} else {
		add(Check{Name: "network namespace", OK: true, Warn: true,
			Detail: "cannot confirm the initial network namespace (audit multicast reaches only it); the end-to-end check decides"})
	}

	st, err := auditctl.ReadStatus()
	if err != nil {
		add(Check{Name: "audit status", Detail: "cannot query audit status", Err: err, Fix: fixOf(err)})
	} else {
		r.Status = &st
		add(Check{Name: "audit status", OK: true, Detail: fmt.Sprintf("enabled=%d lost=%d backlog=%d", st.Enabled, st.Lost, st.Backlog)})
		if st.RateLimit != 0 {
			add(Check{Name: "rate limit", OK: true, Warn: true,
				Detail: fmt.Sprintf("rate_limit=%d records/s: records above it are dropped and the run is inconclusive", st.RateLimit),
				Fix:    "auditctl -r 0"})
		} else {
			add(Check{Name: "rate limit", OK: true, Detail: "none"})
		}
		backlog := fmt.Sprintf("backlog_limit=%d backlog_wait_time=%d", st.BacklogLimit, st.BacklogWaitTime)
		if st.BacklogLimit < auditctl.TunedBacklogLimit || st.BacklogWaitTime != auditctl.TunedBacklogWaitTime {
			backlog += fmt.Sprintf("; runs set %d/%d while active and restore these afterwards", auditctl.TunedBacklogLimit, auditctl.TunedBacklogWaitTime)
		}
		add(Check{Name: "backlog", OK: true, Detail: backlog})
		add(tuningCheck())
		if st.PID != 0 {
			add(Check{Name: "audit daemon", OK: true, Warn: true,
				Detail: fmt.Sprintf("pid %d receives the unicast stream; sysgate reads the multicast copy and never takes it over", st.PID)})
		} else {
			add(Check{Name: "audit daemon", OK: true, Detail: "none (sysgate reads the multicast group either way)"})
			if cmdlineErr == nil && bootAuditOn(cmdline) {
				add(Check{Name: "hold queue", OK: true, Warn: true,
					Detail: "the kernel was booted with audit=1 and no audit daemon runs: it keeps every record for a daemon in a hold queue of backlog_limit records and, once that is full, counts each further record as lost, so runs that log anything come out inconclusive",
					Fix:    "start the audit daemon (systemctl start auditd), or boot without audit=1"})
			}
		}
	}

	if len(r.Failed()) == 0 {
		r.Checks = append(r.Checks, endToEnd(netInit)...)
	}
	var errs []error
	for _, c := range r.Failed() {
		errs = append(errs, c.Err)
	}
	return r, errors.Join(errs...)
}

// endToEnd opens a stream as runs do (its receive buffer is reported
// too) and passes one barrier.
func endToEnd(netInit bool) []Check {
	const name = "end to end"
	// A short barrier: in a container the marker never arrives, and
	// doctor should say so within a second.
	s, err := auditlog.Open(auditlog.Options{BarrierTimeout: 500 * time.Millisecond, BarrierAttempts: 2})
	if err == nil {
		defer s.Close()
		buf := receiveBufferCheck(s, auditlog.DefaultRcvBuf)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		if err = s.Barrier(ctx); err == nil {
			return []Check{buf, {Name: name, OK: true, Detail: fmt.Sprintf("a logged syscall's record arrived in %v", time.Since(start).Round(time.Microsecond))}}
		}
	}
	return []Check{endToEndFailure(err, netInit)}
}

func receiveBufferCheck(s *auditlog.Stream, want int) Check {
	const name = "receive buffer"
	got := s.Stats().RcvBuf
	if got < want {
		return Check{Name: name, OK: true, Warn: true,
			Detail: fmt.Sprintf("%d KiB, less than the %d KiB asked for (no CAP_NET_ADMIN: capped by net.core.rmem_max); bursts may overrun it and make runs inconclusive", got>>10, want>>10),
			Fix:    fmt.Sprintf("sudo sysctl -w net.core.rmem_max=%d, or run as root", want)}
	}
	return Check{Name: name, OK: true, Detail: fmt.Sprintf("%d MiB", got>>20)}
}

func endToEndFailure(err error, netInit bool) Check {
	const name = "end to end"
	if !errors.Is(err, auditlog.ErrBarrierTimeout) || netInit {
		return Check{Name: name, Detail: err.Error(), Err: err, Fix: fixOf(err)}
	}
	e := &auditctl.Error{Kind: auditctl.ErrNamespace, Problem: "logged syscalls never reach this process's audit socket: not the initial network namespace?",
		Fix: "run on the host or a VM runner, not in a container with its own network namespace", Err: err}
	return Check{Name: name, Detail: e.Problem, Fix: e.Fix, Err: e}
}

func fixOf(err error) string {
	var e *auditctl.Error
	if errors.As(err, &e) {
		return e.Fix
	}
	return ""
}

// tuningCheck reports who holds the run tuning (/run/sysgate/tuning.json)
// and whether a crashed holder left settings for the next run to restore.
func tuningCheck() Check {
	const name = "run tuning"
	h, found, err := auditctl.ReadTuningHolders()
	switch {
	case err != nil:
		return Check{Name: name, OK: true, Warn: true, Detail: err.Error(), Fix: "remove the file if no sysgate runs; the next run then starts fresh"}
	case !found:
		return Check{Name: name, OK: true, Detail: "no run active"}
	}
	pids := func(l []int) string {
		s := make([]string, len(l))
		for i, p := range l {
			s[i] = strconv.Itoa(p)
		}
		return strings.Join(s, ",")
	}
	if len(h.Live) == 0 {
		return Check{Name: name, OK: true, Warn: true,
			Detail: fmt.Sprintf("left by crashed sysgate pid %s; the next run restores backlog_limit=%d backlog_wait_time=%d",
				pids(h.Dead), h.SavedBacklogLimit, h.SavedBacklogWaitTime)}
	}
	return Check{Name: name, OK: true, Detail: fmt.Sprintf("held by running sysgate pid %s (saved %d/%d)",
		pids(h.Live), h.SavedBacklogLimit, h.SavedBacklogWaitTime)}
}

// bootAuditOn reports whether a kernel command line turns auditing on at
// boot (audit=1 or audit=on; the last setting wins, arguments after "--"
// belong to init). Then records that no audit daemon takes wait in the
// kernel's hold queue instead of being dropped quietly.
func bootAuditOn(cmdline string) bool {
	on := false
	for _, f := range strings.Fields(cmdline) {
		if f == "--" {
			break
		}
		if v, ok := strings.CutPrefix(f, "audit="); ok {
			on = v == "1" || strings.EqualFold(v, "on")
		}
	}
	return on
}
