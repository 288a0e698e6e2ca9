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
	r.Checks = append(r.Checks, kernelChecks()...)
	cmdline, cmdlineErr := kernel.BootCmdline()
	if cmdlineErr == nil && slices.Contains(strings.Fields(cmdline), "audit=0") {
		r.Checks = append(r.Checks, failure("audit boot option", auditctl.ErrNotSupported, "the kernel was booted with audit=0: no audit records are emitted at all",
			"remove audit=0 from the kernel command line and reboot", nil))
	}
	r.Checks = append(r.Checks, actionsLoggedCheck())
	r.Checks = append(r.Checks, capabilityChecks()...)
	nsChecks, netInit := namespaceChecks()
	r.Checks = append(r.Checks, nsChecks...)
	// Only a boot with audit=1 and no daemon fills the hold queue.
	bootOn := cmdlineErr == nil && bootAuditOn(cmdline)
	st, statusChecks := auditStatusChecks(bootOn)
	r.Status = st
	r.Checks = append(r.Checks, statusChecks...)

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
