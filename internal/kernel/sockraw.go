package kernel

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Socket calls with the address as raw bytes: a proxy passes on exactly
// the copy it decided on, whatever the family, without a round trip
// through unix.Sockaddr (which knows only some families).

func sockaddrArgs(raw []byte) (uintptr, uintptr) {
	if len(raw) == 0 {
		return 0, 0
	}
	return uintptr(unsafe.Pointer(&raw[0])), uintptr(len(raw))
}

// ConnectRaw is connect(2); the errno is returned bare (unwrapped), as
// the proxy hands it to its caller.
func ConnectRaw(fd int, raw []byte) unix.Errno {
	p, n := sockaddrArgs(raw)
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), p, n)
	return e
}

// BindRaw is bind(2), errno bare.
func BindRaw(fd int, raw []byte) unix.Errno {
	p, n := sockaddrArgs(raw)
	_, _, e := unix.Syscall(unix.SYS_BIND, uintptr(fd), p, n)
	return e
}

// SendmsgRaw is sendmsg(2) of the buffers with the raw address (none:
// the connected peer) and control data, errno bare.
func SendmsgRaw(fd int, bufs [][]byte, raw, control []byte, flags int) (int, unix.Errno) {
	iov := make([]unix.Iovec, 0, len(bufs))
	for _, b := range bufs {
		if len(b) > 0 {
			iov = append(iov, unix.Iovec{Base: &b[0], Len: uint64(len(b))})
		}
	}
	var msg unix.Msghdr
	if len(raw) > 0 {
		msg.Name = &raw[0]
		msg.Namelen = uint32(len(raw))
	}
	if len(iov) > 0 {
		msg.Iov = &iov[0]
		msg.Iovlen = uint64(len(iov))
	}
	if len(control) > 0 {
		msg.Control = &control[0]
		msg.Controllen = uint64(len(control))
	}
	n, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), uintptr(flags))
	return int(n), e
}

// SocketError is the socket's pending error (SO_ERROR): how a connect
// that went on in the background ended.
func SocketError(fd int) (unix.Errno, error) {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return 0, os.NewSyscallError("getsockopt(SO_ERROR)", err)
	}
	return unix.Errno(v), nil
}
