package netproxy

import (
	"fmt"
	"net/netip"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// serve reads the call, takes the caller's socket and credentials, asks
// about the destination and performs the call. Runs on the call's own
// locked thread.
func (c *call) serve() (outcome, error) {
	pid := int(c.notif.PID)
	var err error
	// The caller may be any thread of its process: the notification
	// names it by thread id.
	if c.pidfd, err = kernel.PidfdOpenThread(pid); err != nil {
		return fail(unix.EACCES), nil // gone: the answer will find no task
	}
	if c.cred, err = kernel.ReadTaskCred(pid); err != nil {
		return fail(unix.EACCES), err
	}
	reqs, stop := readRequests(pid, c.name, c.notif.Data.Args)
	// What was read of pid was read of the caller only if the call
	// still waits: the pid cannot have been reused while it does.
	if !kernel.NotifIDValid(c.listener, c.notif.ID) {
		return fail(unix.EACCES), nil
	}
	if len(reqs) == 0 && stop != 0 {
		return fail(stop), nil
	}
	if c.sock, err = kernel.PidfdGetfd(c.pidfd, int(int32(c.notif.Data.Args[0]))); err != nil {
		return fail(errnoOf(err)), nil // EBADF as the caller would get
	}
	needDirs := false
	for i := range reqs {
		var errno unix.Errno
		if reqs[i].control, errno = c.translateRights(reqs[i].control); errno != 0 {
			// A sendmmsg sends the messages before this one.
			reqs, stop = reqs[:i], errno
			break
		}
		needDirs = needDirs || reqs[i].sa != nil && reqs[i].sa.path != ""
	}
	if len(reqs) == 0 && stop != 0 {
		return fail(stop), nil
	}
	var dirs *callerDirs
	if needDirs {
		// Opened before the thread turns into the caller, who may not
		// open its own /proc entries (a non-dumpable one).
		if dirs, err = openCallerDirs(pid); err != nil {
			return fail(unix.EACCES), err
		}
		defer dirs.close()
	}
	if err := kernel.UnshareThreadFS(); err != nil {
		return fail(unix.EACCES), err
	}
	if err := kernel.AssumeThreadCred(c.cred); err != nil {
		return fail(unix.EACCES), fmt.Errorf("take the credentials of %d: %w", pid, err)
	}
	if c.name == "sendmmsg" {
		return c.sendBatch(reqs, stop, dirs)
	}
	return c.perform(reqs[0], dirs)
}

// destination is where req goes: the raw address to use (for a path
// Unix socket, one that leads to what its name led to, or for a bind
// the last component in the directory entered) and what to decide on.
// Nothing for a request without an address.
func (c *call) destination(req request, dirs *callerDirs) (raw []byte, dest Dest, errno unix.Errno) {
	if req.sa == nil {
		return nil, Dest{}, 0
	}
	raw, dest = req.sa.raw, req.sa.dest
	if dest.Family == "inet" || dest.Family == "inet6" {
		if req.op == "connect" || req.op == "send" {
			return c.usedInet(req.sa)
		}
		return raw, dest, 0
	}
	if req.sa.path == "" {
		return raw, dest, 0
	}
	if req.op == "bind" {
		raw, dest.Unix, errno = dirs.enter(req.sa.path)
		return raw, dest, errno
	}
	var fd int
	fd, raw, dest.Unix, errno = dirs.reach(req.sa.path)
	if fd >= 0 {
		c.closers = append(c.closers, fd)
	}
	return raw, dest, errno
}

// usedInet is an IP destination as the kernel reaches it (UsedAddr):
// an unspecified address is decided as the local one it means, and the
// kernel is given that one, so what was decided is what is reached
// even if another thread binds the socket meanwhile.
func (c *call) usedInet(sa *sockaddr) ([]byte, Dest, unix.Errno) {
	dest := sa.dest
	if !dest.Addr.IsUnspecified() {
		return sa.raw, dest, 0
	}
	var bound netip.Addr
	if sn, err := unix.Getsockname(c.sock); err == nil {
		switch a := sn.(type) {
		case *unix.SockaddrInet4:
			bound = netip.AddrFrom4(a.Addr)
		case *unix.SockaddrInet6:
			bound = netip.AddrFrom16(a.Addr)
		}
	}
	dst := netip.IPv4Unspecified()
	if dest.Family == "inet6" { // ::, or ::ffff:0.0.0.0
		dst = netip.AddrFrom16([16]byte(sa.raw[8:24]))
	}
	dest.Addr = UsedAddr(dst, bound)
	raw := slices.Clone(sa.raw)
	if dest.Family == "inet" {
		a := dest.Addr.As4()
		copy(raw[4:8], a[:])
	} else {
		a := dest.Addr.As16() // v4-mapped for an IPv4 one
		copy(raw[8:24], a[:])
	}
	return raw, dest, 0
}

// perform asks about req's destination and does it on the socket.
func (c *call) perform(req request, dirs *callerDirs) (outcome, error) {
	raw, dest, errno := c.destination(req, dirs)
	if errno != 0 {
		return fail(errno), nil
	}
	switch req.op {
	case "listen":
		d, err := boundDest(c.sock)
		if err != nil {
			return fail(errnoOf(err)), nil
		}
		if !c.allow(Access{Op: "listen", Dest: d, Syscall: c.name}) {
			return fail(unix.EACCES), nil
		}
		if err := unix.Listen(c.sock, req.backlog); err != nil {
			return fail(errnoOf(err)), nil
		}
		return outcome{}, nil
	case "send":
		// No address: the connected peer, decided at connect.
		if req.sa == nil {
			c.release()
		} else if !c.allow(Access{Op: "send", Dest: dest, Syscall: c.name}) {
			return fail(unix.EACCES), nil
		}
		return c.send(req, raw)
	}
	if !c.allow(Access{Op: req.op, Dest: dest, Syscall: c.name}) {
		return fail(unix.EACCES), nil
	}
	if req.op == "bind" {
		return result(0, kernel.BindRaw(c.sock, raw)), nil
	}
	return c.connect(raw)
}

// result is val, or errno if not 0.
func result(val int64, errno unix.Errno) outcome {
	if errno != 0 {
		return fail(errno)
	}
	return outcome{val: val}
}

// connect returns EINPROGRESS as such for a non-blocking socket (the
// caller polls its own descriptor: the same open file). A blocking
// connect interrupted by a signal to this thread goes on in the
// kernel: wait for it and report how it ended, as the caller's
// uninterrupted call would.
func (c *call) connect(raw []byte) (outcome, error) {
	errno := kernel.ConnectRaw(c.sock, raw)
	if errno != unix.EINTR {
		return result(0, errno), nil
	}
	fds := []unix.PollFd{{Fd: int32(c.sock), Events: unix.POLLOUT}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			break
		}
	}
	soErr, err := kernel.SocketError(c.sock)
	if err != nil {
		return fail(unix.EACCES), err
	}
	return result(0, soErr), nil
}

// boundDest is the socket's own address: what a listen exposes.
func boundDest(fd int) (Dest, error) {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return Dest{}, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return Dest{Family: "inet", Addr: netip.AddrFrom4(a.Addr), Port: uint16(a.Port)}, nil
	case *unix.SockaddrInet6:
		return Dest{Family: "inet6", Addr: netip.AddrFrom16(a.Addr), Port: uint16(a.Port)}, nil
	case *unix.SockaddrUnix:
		if len(a.Name) > 0 && a.Name[0] == '@' {
			return Dest{Family: "unix", Unix: a.Name[1:], Abstract: true}, nil
		}
		return Dest{Family: "unix", Unix: a.Name}, nil
	}
	return Dest{Family: fmt.Sprintf("%T", sa)}, nil
}
