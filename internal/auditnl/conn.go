package auditnl

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	libaudit "github.com/elastic/go-libaudit/v2"
	"golang.org/x/sys/unix"
)

// GroupReadLog is AUDIT_NLGRP_READLOG, the multicast group every audit
// record is copied to.
const GroupReadLog = 1

// MaxMessage is the largest audit message the kernel sends
// (MAX_AUDIT_MESSAGE_LENGTH) plus the netlink header.
const MaxMessage = 8970 + syscall.NLMSG_HDRLEN

// Config describes one audit netlink socket.
type Config struct {
	// Groups is the multicast group mask to bind (GroupReadLog for the
	// reader, 0 for a control socket).
	Groups uint32
	// RcvBuf, when > 0, is forced with SO_RCVBUFFORCE (the kernel doubles
	// it). Multicast overruns with the default 212 KiB buffer.
	RcvBuf int
	// ReadTimeout bounds a blocking Receive so the reader can notice Close;
	// zero blocks forever.
	ReadTimeout time.Duration
	// ReplyWait turns the non-blocking reads go-libaudit uses for replies
	// into waits of up to this long: the kernel answers AUDIT_GET from a
	// worker thread, and libaudit's own retry sleeps 50 ms per miss.
	ReplyWait time.Duration
	// Batch, when > 1, makes the socket read up to this many datagrams per
	// recvmmsg(2) and hand them out one per Receive: a reader that keeps
	// up with a flood of records then makes one syscall per batch instead
	// of one per record.
	Batch int
}

// Conn is a NETLINK_AUDIT socket that go-libaudit's AuditClient can drive
// (it implements libaudit.NetlinkSendReceiver) while sysgate keeps the fd:
// the buffer size is ours and ENOBUFS is counted, not hidden.
type Conn struct {
	fd        int
	portID    uint32
	seq       atomic.Uint32
	buf       []byte // the datagram Receive returns: c.ring's current slot, or its own
	ring      *mmsgRing
	replyWait time.Duration
	enobufs   atomic.Uint64
	closed    atomic.Bool
}

var _ libaudit.NetlinkSendReceiver = (*Conn)(nil)

// Dial opens and binds an audit netlink socket.
func Dial(cfg Config) (*Conn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_AUDIT)
	if err != nil {
		return nil, os.NewSyscallError("socket(NETLINK_AUDIT)", err)
	}
	c := &Conn{fd: fd, replyWait: cfg.ReplyWait}
	if cfg.Batch > 1 {
		c.ring = newRing(cfg.Batch)
	} else {
		c.buf = make([]byte, MaxMessage)
	}
	if err := c.setup(cfg); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return c, nil
}

func (c *Conn) setup(cfg Config) error {
	if cfg.RcvBuf > 0 {
		err := unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, cfg.RcvBuf)
		if errors.Is(err, unix.EPERM) {
			// Without CAP_NET_ADMIN the size is capped by net.core.rmem_max;
			// overruns are still detected (ENOBUFS, serial gaps).
			err = unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, cfg.RcvBuf)
		}
		if err != nil {
			return os.NewSyscallError("setsockopt(SO_RCVBUFFORCE)", err)
		}
	}
	if cfg.ReadTimeout > 0 {
		tv := unix.NsecToTimeval(cfg.ReadTimeout.Nanoseconds())
		if err := unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return os.NewSyscallError("setsockopt(SO_RCVTIMEO)", err)
		}
	}
	if err := unix.Bind(c.fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: cfg.Groups}); err != nil {
		return os.NewSyscallError("bind(NETLINK_AUDIT)", err)
	}
	sa, err := unix.Getsockname(c.fd)
	if err != nil {
		return os.NewSyscallError("getsockname", err)
	}
	if nl, ok := sa.(*unix.SockaddrNetlink); ok {
		c.portID = nl.Pid
	}
	return nil
}

// RcvBuf returns the socket's effective receive buffer size.
func (c *Conn) RcvBuf() (int, error) {
	n, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	return n, os.NewSyscallError("getsockopt(SO_RCVBUF)", err)
}

// ENOBUFS returns how many times a receive reported that the kernel dropped
// messages because the socket buffer was full. The kernel reports an
// overrun once however many messages it dropped, so this counts episodes.
func (c *Conn) ENOBUFS() uint64 { return c.enobufs.Load() }

// Send implements libaudit.NetlinkSender.
func (c *Conn) Send(msg syscall.NetlinkMessage) (uint32, error) { return c.send(msg, 0) }

// SendNoWait implements libaudit.NetlinkSender.
func (c *Conn) SendNoWait(msg syscall.NetlinkMessage) (uint32, error) {
	return c.send(msg, unix.MSG_DONTWAIT)
}

func (c *Conn) send(msg syscall.NetlinkMessage, flags int) (uint32, error) {
	if msg.Header.Pid == 0 {
		msg.Header.Pid = c.portID
	}
	msg.Header.Seq = c.seq.Add(1)
	msg.Header.Len = uint32(syscall.NLMSG_HDRLEN + len(msg.Data))
	b := make([]byte, msg.Header.Len)
	*(*syscall.NlMsghdr)(unsafe.Pointer(&b[0])) = msg.Header
	copy(b[syscall.NLMSG_HDRLEN:], msg.Data)
	err := unix.Sendto(c.fd, b, flags, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
	return msg.Header.Seq, os.NewSyscallError("sendto(NETLINK_AUDIT)", err)
}

// ErrClosed is returned by Receive after Close.
var ErrClosed = errors.New("audit netlink socket closed")

// Receive implements libaudit.NetlinkReceiver. The returned data is backed
// by the connection's buffer until the next Receive. ENOBUFS is counted and
// returned; the socket stays usable.
func (c *Conn) Receive(nonBlocking bool, parse libaudit.NetlinkParser) ([]syscall.NetlinkMessage, error) {
	n, err := c.ReceiveRaw(nonBlocking)
	if err != nil {
		return nil, err
	}
	msgs, err := parse(c.buf[:n])
	if err != nil {
		return nil, fmt.Errorf("parse netlink message (%d bytes): %w", n, err)
	}
	return msgs, nil
}

// ReceiveRaw reads one netlink datagram into the connection's buffer and
// returns its length; Buffer()[:n] holds it until the next call.
func (c *Conn) ReceiveRaw(nonBlocking bool) (int, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	flags := 0
	if nonBlocking {
		if c.replyWait > 0 {
			if err := c.wait(c.replyWait); err != nil {
				return 0, err
			}
		}
		flags = unix.MSG_DONTWAIT
	}
	if c.ring != nil {
		return c.receiveBatched(flags)
	}
	for {
		n, from, err := unix.Recvfrom(c.fd, c.buf, flags)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, c.receiveErr(os.NewSyscallError("recvfrom", err))
		}
		if nl, ok := from.(*unix.SockaddrNetlink); !ok || nl.Pid != 0 {
			continue // not from the kernel: ignore, never trust
		}
		if n < syscall.NLMSG_HDRLEN {
			return 0, fmt.Errorf("short netlink message: %d bytes", n)
		}
		return n, nil
	}
}

// receiveErr counts an overrun (ENOBUFS) and names the socket in a
// receive error; after Close it is ErrClosed.
func (c *Conn) receiveErr(err error) error {
	if errors.Is(err, unix.ENOBUFS) {
		c.enobufs.Add(1)
	} else if c.closed.Load() {
		return ErrClosed
	}
	return fmt.Errorf("NETLINK_AUDIT socket: %w", err)
}

// Buffer returns the datagram the last ReceiveRaw returned.
func (c *Conn) Buffer() []byte { return c.buf }

func (c *Conn) wait(d time.Duration) error {
	fds := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left < 0 {
			return nil // let the non-blocking read report EAGAIN
		}
		_, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return os.NewSyscallError("poll(NETLINK_AUDIT)", err)
	}
}

// Close closes the socket. It must not race with a Receive in another
// goroutine (the fd number could be reused under it): a reader should
// notice a stop flag at its ReadTimeout, return, and only then Close.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return os.NewSyscallError("close", unix.Close(c.fd))
}
