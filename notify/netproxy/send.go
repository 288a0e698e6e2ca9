package netproxy

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// send sends the payload read from the caller with the checked address.
// SIGPIPE: the kernel would raise it in the caller, not here; so the
// send never raises it and the caller gets it unless it asked not to.
// SCM_RIGHTS: the descriptor numbers are the caller's; each is taken
// over with pidfd_getfd, so the receiver gets the caller's files.
func (c *call) send(req request, raw []byte) (outcome, error) {
	typ, err := unix.GetsockoptInt(c.sock, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return fail(errnoOf(err)), nil
	}
	if req.total > maxPayload && typ != unix.SOCK_STREAM {
		// A datagram is sent whole or not at all.
		return fail(unix.EMSGSIZE), nil
	}
	n, errno := kernel.SendmsgRaw(c.sock, req.bufs, raw, req.control, req.flags|unix.MSG_NOSIGNAL)
	for errno == unix.EINTR {
		n, errno = kernel.SendmsgRaw(c.sock, req.bufs, raw, req.control, req.flags|unix.MSG_NOSIGNAL)
	}
	if errno == unix.EPIPE && req.flags&unix.MSG_NOSIGNAL == 0 {
		kernel.PidfdSignal(c.pidfd, unix.SIGPIPE)
	}
	return result(int64(n), errno), nil
}

// translateRights replaces the caller's descriptor numbers in
// SCM_RIGHTS messages by duplicates of the same files here; other
// control messages pass unchanged. The duplicates are closed with the
// call (the kernel holds its own references once sent). Done before
// the thread takes the caller's credentials: pidfd_getfd needs the
// supervisor's ptrace access.
func (c *call) translateRights(control []byte) ([]byte, unix.Errno) {
	if len(control) == 0 {
		return nil, 0
	}
	msgs, err := unix.ParseSocketControlMessage(control)
	if err != nil {
		return nil, unix.EINVAL
	}
	var out []byte
	for _, m := range msgs {
		if m.Header.Level != unix.SOL_SOCKET || m.Header.Type != unix.SCM_RIGHTS {
			out = append(out, rebuild(m)...)
			continue
		}
		theirs, err := unix.ParseUnixRights(&m)
		if err != nil {
			return nil, unix.EINVAL
		}
		ours := make([]int, 0, len(theirs))
		for _, fd := range theirs {
			dup, err := kernel.PidfdGetfd(c.pidfd, fd)
			if err != nil {
				return nil, errnoOf(err)
			}
			c.closers = append(c.closers, dup)
			ours = append(ours, dup)
		}
		out = append(out, unix.UnixRights(ours...)...)
	}
	return out, 0
}

// rebuild is one control message in its aligned wire form.
func rebuild(m unix.SocketControlMessage) []byte {
	b := make([]byte, unix.CmsgSpace(len(m.Data)))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
	h.Level, h.Type = m.Header.Level, m.Header.Type
	h.SetLen(unix.CmsgLen(len(m.Data)))
	copy(b[unix.CmsgLen(0):], m.Data)
	return b
}
