package netproxy

import (
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// maxPayload caps what one proxied send reads from the caller: a
// stream send gets a short count beyond it (the caller sends the rest
// in its next call, as after any short write), a datagram EMSGSIZE.
const maxPayload = 256 << 10

// maxSockaddr is sockaddr_storage's size: the kernel refuses a longer
// address with EINVAL.
const maxSockaddr = 128

// request is what a held call asks for, read once from the caller.
type request struct {
	// op: connect, bind, listen or send.
	op string
	sa *sockaddr // nil: no address (listen; a send to the connected peer)
	// bufs: a send's payload; total its full length in the caller.
	bufs    [][]byte
	total   int
	control []byte
	flags   int
	backlog int
}

// errnoOf is err's errno, EACCES if it has none.
func errnoOf(err error) unix.Errno {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EACCES
}

// readRequests reads the call's memory arguments once: one request,
// or a sendmmsg's messages (see readBatch). stop is the errno of the
// first one that could not be read (what the kernel would give the
// caller for it); the requests before it are sent first.
func readRequests(pid int, name string, args [6]uint64) (reqs []request, stop unix.Errno) {
	if name == "sendmmsg" {
		return readBatch(pid, args[1], uint32(args[2]), int(int32(args[3])))
	}
	req, errno := readRequest(pid, name, args)
	if errno != 0 {
		return nil, errno
	}
	return []request{req}, 0
}

// maxBatch is UIO_MAXIOV: the kernel sends at most that many messages
// of one sendmmsg.
const maxBatch = 1024

// msgCmsgCompat is MSG_CMSG_COMPAT (not in x/sys/unix).
const msgCmsgCompat = 0x80000000

// readBatch reads a sendmmsg's messages in order, each read once as
// sendmsg's msghdr is, until one fails (its errno is stop) or vlen
// (at most maxBatch) are read. The payload read for the whole call is
// at most maxPayload: the first message is capped as a sendmsg is, and
// the batch ends before a later one that does not fit whole (the
// caller gets a short count and sends it in its next call, as after
// any partial batch).
func readBatch(pid int, addr uint64, vlen uint32, flags int) ([]request, unix.Errno) {
	if uint32(flags)&msgCmsgCompat != 0 {
		return nil, unix.EINVAL // the kernel's own flag, refused from user space
	}
	vlen = min(vlen, maxBatch)
	var reqs []request
	room := maxPayload
	for i := range uint64(vlen) {
		r, errno := readMsghdr(pid, addr+i*unix.SizeofMmsghdr, flags, unix.MSG_EOR, room)
		if errno != 0 {
			return reqs, errno
		}
		got := readLen(r.bufs)
		if len(reqs) > 0 && got < r.total {
			break
		}
		reqs = append(reqs, r)
		room -= got
	}
	return reqs, 0
}

// readRequest reads the call's memory arguments. An error is the errno
// the kernel would give the caller for them.
func readRequest(pid int, name string, args [6]uint64) (request, unix.Errno) {
	switch name {
	case "connect", "bind":
		sa, errno := readSockaddr(pid, args[1], args[2])
		return request{op: name, sa: sa}, errno
	case "listen":
		return request{op: name, backlog: int(int32(args[1]))}, 0
	case "sendto":
		r := request{op: "send", flags: int(int32(args[3])), total: int(args[2])}
		if args[4] != 0 {
			sa, errno := readSockaddr(pid, args[4], args[5])
			if errno != 0 {
				return r, errno
			}
			r.sa = sa
		}
		if args[2] > 0 {
			b, err := kernel.ReadMemBytes(pid, args[1], int(min(args[2], maxPayload)))
			if err != nil {
				return r, unix.EFAULT
			}
			r.bufs = [][]byte{b}
		}
		return r, 0
	case "sendmsg":
		return readMsghdr(pid, args[1], int(int32(args[2])), 0, maxPayload)
	}
	return request{}, unix.ENOSYS
}

func readSockaddr(pid int, addr, n uint64) (*sockaddr, unix.Errno) {
	if n > maxSockaddr || int64(n) < 0 {
		return nil, unix.EINVAL
	}
	raw, err := kernel.ReadMemBytes(pid, addr, int(n))
	if err != nil {
		return nil, unix.EFAULT
	}
	sa, err := parseSockaddr(raw)
	if err != nil {
		return nil, errnoOf(err)
	}
	return &sa, 0
}

// readMsghdr reads struct msghdr (64-bit layout), its address, its
// iovecs up to room bytes and its control data. ownFlags are the bits
// of the msghdr's own msg_flags the call honours: none for sendmsg,
// MSG_EOR for each message of a sendmmsg, as the kernel does.
func readMsghdr(pid int, addr uint64, flags, ownFlags, room int) (request, unix.Errno) {
	r := request{op: "send", flags: flags}
	h, err := kernel.ReadMemBytes(pid, addr, unix.SizeofMsghdr)
	if err != nil {
		return r, unix.EFAULT
	}
	le := binary.NativeEndian
	name, namelen := le.Uint64(h[0:]), uint64(le.Uint32(h[8:]))
	iov, iovlen := le.Uint64(h[16:]), le.Uint64(h[24:])
	ctl, ctllen := le.Uint64(h[32:]), le.Uint64(h[40:])
	r.flags |= int(int32(le.Uint32(h[48:]))) & ownFlags
	if name != 0 && namelen > 0 {
		sa, errno := readSockaddr(pid, name, namelen)
		if errno != 0 {
			return r, errno
		}
		r.sa = sa
	}
	if iovlen > 1024 { // UIO_MAXIOV
		return r, unix.EMSGSIZE
	}
	if iovlen > 0 {
		vecs, err := kernel.ReadMemBytes(pid, iov, int(iovlen)*unix.SizeofIovec)
		if err != nil {
			return r, unix.EFAULT
		}
		for i := range int(iovlen) {
			base, n := le.Uint64(vecs[i*16:]), le.Uint64(vecs[i*16+8:])
			if int64(n) < 0 {
				return r, unix.EINVAL
			}
			r.total += int(n)
			left := room - readLen(r.bufs)
			if n == 0 || left <= 0 {
				continue
			}
			b, err := kernel.ReadMemBytes(pid, base, int(min(n, uint64(left))))
			if err != nil {
				return r, unix.EFAULT
			}
			r.bufs = append(r.bufs, b)
		}
	}
	if ctllen > 0 {
		if ctllen > 64<<10 { // the kernel's sysctl_optmem_max is smaller
			return r, unix.ENOBUFS
		}
		b, err := kernel.ReadMemBytes(pid, ctl, int(ctllen))
		if err != nil {
			return r, unix.EFAULT
		}
		r.control = b
	}
	return r, 0
}

func readLen(bufs [][]byte) int {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	return n
}
