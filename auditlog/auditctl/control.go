package auditctl

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	libaudit "github.com/elastic/go-libaudit/v2"
	"github.com/sysgate/sysgate/internal/auditnl"
)

// Status is the kernel's audit status (AUDIT_GET).
type Status struct {
	Enabled         uint32 `json:"enabled"`           // 0 off, 1 on, 2 locked
	PID             uint32 `json:"pid"`               // unicast owner (auditd), 0 if none
	RateLimit       uint32 `json:"rate_limit"`        // records/s, 0 unlimited
	BacklogLimit    uint32 `json:"backlog_limit"`     // queued records before waiting or dropping
	Lost            uint32 `json:"lost"`              // records dropped at the source since boot
	Backlog         uint32 `json:"backlog"`           // records queued now
	BacklogWaitTime uint32 `json:"backlog_wait_time"` // jiffies a logging task waits for room
}

// control is a short-lived audit control connection: status requests and
// settings. It is separate from the multicast reader because go-libaudit's
// reply reader discards records that arrive between request and reply.
type control struct {
	conn   *auditnl.Conn
	client *libaudit.AuditClient
}

func dialControl() (*control, error) {
	conn, err := auditnl.Dial(auditnl.Config{ReplyWait: 2 * time.Second})
	if err != nil {
		return nil, ClassifySocketErr(err)
	}
	return &control{conn: conn, client: &libaudit.AuditClient{Netlink: conn}}, nil
}

func (c *control) Close() error { return c.client.Close() }

func (c *control) status() (Status, error) {
	st, err := c.client.GetStatus()
	if err != nil {
		return Status{}, fmt.Errorf("audit status: %w", ClassifySocketErr(err))
	}
	return Status{
		Enabled: st.Enabled, PID: st.PID, RateLimit: st.RateLimit, BacklogLimit: st.BacklogLimit,
		Lost: st.Lost, Backlog: st.Backlog, BacklogWaitTime: st.BacklogWaitTime,
	}, nil
}

func (c *control) setBacklog(limit, wait uint32) error {
	if err := c.setBacklogLimit(limit); err != nil {
		return err
	}
	return c.setBacklogWaitTime(wait)
}

func (c *control) setBacklogLimit(limit uint32) error {
	if err := c.client.SetBacklogLimit(limit, libaudit.WaitForReply); err != nil {
		return fmt.Errorf("set audit backlog_limit=%d: %w", limit, ClassifySocketErr(err))
	}
	return nil
}

func (c *control) setBacklogWaitTime(wait uint32) error {
	if err := c.client.SetBacklogWaitTime(int32(wait), libaudit.WaitForReply); err != nil {
		return fmt.Errorf("set audit backlog_wait_time=%d: %w", wait, ClassifySocketErr(err))
	}
	return nil
}

func (c *control) setEnabled(on bool) error {
	if err := c.client.SetEnabled(on, libaudit.WaitForReply); err != nil {
		return fmt.Errorf("set audit enabled=%v: %w", on, ClassifySocketErr(err))
	}
	return nil
}

// forceEnabled turns audit on or off (fault tests holding ExclusiveKernel,
// whose release restores the previous value).
func forceEnabled(on bool) error {
	c, err := dialControl()
	if err != nil {
		return err
	}
	defer c.Close()
	return c.setEnabled(on)
}

func (c *control) setRateLimit(limit uint32) error {
	if err := c.client.SetRateLimit(limit, libaudit.WaitForReply); err != nil {
		return fmt.Errorf("set audit rate_limit=%d: %w", limit, ClassifySocketErr(err))
	}
	return nil
}

// ReadStatus returns the kernel's audit status over a fresh control socket.
func ReadStatus() (Status, error) {
	c, err := dialControl()
	if err != nil {
		return Status{}, err
	}
	defer c.Close()
	return c.status()
}

// forceBacklog sets backlog_limit and backlog_wait_time (jiffies), for
// fault tests holding ExclusiveKernel.
func forceBacklog(limit, wait uint32) error {
	c, err := dialControl()
	if err != nil {
		return err
	}
	defer c.Close()
	return c.setBacklog(limit, wait)
}

// ClassifySocketErr maps errno values of an audit socket to the sentinels
// (ErrNotSupported, ErrPermission, ErrNamespace), keeping the original
// error in the chain.
func ClassifySocketErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EPROTONOSUPPORT), errors.Is(err, syscall.EAFNOSUPPORT):
		return &Error{Kind: ErrNotSupported, Problem: "the kernel has no audit netlink socket (CONFIG_AUDIT off)", Fix: "use a kernel built with CONFIG_AUDIT=y (every distribution kernel and GitHub-hosted runner has it)", Err: err}
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return &Error{Kind: ErrPermission, Problem: "the kernel refused the audit request", Fix: "run as root (sudo) or grant CAP_AUDIT_READ and CAP_AUDIT_CONTROL", Err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Kind: ErrNamespace, Problem: "audit refuses requests from a non-initial user namespace (a container)", Fix: "run on the host or a VM runner, not in a container", Err: err}
	}
	return err
}
