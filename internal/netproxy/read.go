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
		return readMsghdr(pid, args[1], int(int32(args[2])))
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
// iovecs up to maxPayload and its control data.
func readMsghdr(pid int, addr uint64, flags int) (request, unix.Errno) {
	r := request{op: "send", flags: flags}
	h, err := kernel.ReadMemBytes(pid, addr, unix.SizeofMsghdr)
	if err != nil {
		return r, unix.EFAULT
	}
	le := binary.NativeEndian
	name, namelen := le.Uint64(h[0:]), uint64(le.Uint32(h[8:]))
	iov, iovlen := le.Uint64(h[16:]), le.Uint64(h[24:])
	ctl, ctllen := le.Uint64(h[32:]), le.Uint64(h[40:])
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
			room := maxPayload - readLen(r.bufs)
			if n == 0 || room <= 0 {
				continue
			}
			b, err := kernel.ReadMemBytes(pid, base, int(min(n, uint64(room))))
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
