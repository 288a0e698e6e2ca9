package auditnl

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// mmsgRing holds the datagrams one recvmmsg(2) read, handed out in order.
type mmsgRing struct {
	bufs  [][]byte
	names []unix.RawSockaddrNetlink
	iovs  []unix.Iovec
	hdrs  []unix.Mmsghdr
	next  int // next slot to hand out
	count int // slots filled by the last recvmmsg
}

func newRing(n int) *mmsgRing {
	r := &mmsgRing{
		bufs:  make([][]byte, n),
		names: make([]unix.RawSockaddrNetlink, n),
		iovs:  make([]unix.Iovec, n),
		hdrs:  make([]unix.Mmsghdr, n),
	}
	for i := range r.hdrs {
		r.bufs[i] = make([]byte, MaxMessage)
		r.iovs[i].Base = &r.bufs[i][0]
		r.iovs[i].SetLen(MaxMessage)
		r.hdrs[i].Hdr.Name = (*byte)(unsafe.Pointer(&r.names[i]))
		r.hdrs[i].Hdr.Iov = &r.iovs[i]
		r.hdrs[i].Hdr.SetIovlen(1)
	}
	return r
}

// fill reads up to len(hdrs) datagrams: it waits (per flags and the
// socket's SO_RCVTIMEO) for the first only (MSG_WAITFORONE). An error the
// kernel hits after some datagrams (ENOBUFS after an overrun) is kept on
// the socket and reported by the next call, so nothing is hidden.
func (r *mmsgRing) fill(fd, flags int) error {
	for i := range r.hdrs {
		r.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrNetlink
		r.hdrs[i].Hdr.Flags = 0
		r.hdrs[i].Len = 0
	}
	n, err := kernel.Recvmmsg(fd, r.hdrs, flags|unix.MSG_WAITFORONE)
	r.next, r.count = 0, n
	return err
}

// receiveBatched is ReceiveRaw over the ring: a syscall only when the
// ring is empty.
func (c *Conn) receiveBatched(flags int) (int, error) {
	r := c.ring
	for {
		if r.next >= r.count {
			if err := r.fill(c.fd, flags); err != nil {
				return 0, c.receiveErr(err)
			}
		}
		i := r.next
		r.next++
		if r.names[i].Family != unix.AF_NETLINK || r.names[i].Pid != 0 {
			continue // not from the kernel: ignore, never trust
		}
		n := int(r.hdrs[i].Len)
		if r.hdrs[i].Hdr.Flags&unix.MSG_TRUNC != 0 {
			return 0, fmt.Errorf("netlink message truncated at %d bytes", n)
		}
		if n < syscall.NLMSG_HDRLEN {
			return 0, fmt.Errorf("short netlink message: %d bytes", n)
		}
		c.buf = r.bufs[i]
		return n, nil
	}
}
