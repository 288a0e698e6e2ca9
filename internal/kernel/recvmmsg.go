package kernel

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Recvmmsg reads up to len(hdrs) datagrams from the socket fd with one
// recvmmsg(2) (flags: MSG_*) and returns how many it filled; a signal
// during the wait retries.
func Recvmmsg(fd int, hdrs []unix.Mmsghdr, flags int) (int, error) {
	if len(hdrs) == 0 {
		return 0, os.NewSyscallError("recvmmsg", unix.EINVAL)
	}
	var n int
	err := retryEINTR(func() error {
		r, _, errno := unix.Syscall6(unix.SYS_RECVMMSG, uintptr(fd), uintptr(unsafe.Pointer(&hdrs[0])),
			uintptr(len(hdrs)), uintptr(flags), 0, 0)
		if errno != 0 {
			return errno
		}
		n = int(r)
		return nil
	})
	return n, os.NewSyscallError("recvmmsg", err)
}
