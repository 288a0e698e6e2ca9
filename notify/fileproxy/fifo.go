package fileproxy

import (
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// openFIFO opens a FIFO for reading or writing, which blocks until the
// other end is opened: on the proxy's thread that would stop every
// other call, including the one of the process that would open the
// other end. So it blocks on a thread of its own, with the caller's
// credentials, and answers from there; the call stays held meanwhile,
// as it would stay blocked in the kernel. If the caller dies first,
// that thread waits until the FIFO's other end is opened (a run's
// leftover FIFO keeps one idle thread).
func (h *held) openFIFO(pre, flags int, cloexec bool) (outcome, error) {
	c, listener, id := h.c, h.listener, h.notif.ID
	go func() {
		// Never unlocked: the thread ends with the caller's credentials.
		runtime.LockOSThread()
		defer unix.Close(pre)
		if kernel.UnshareThreadFS() != nil || kernel.SetThreadFSCred(c.cred) != nil {
			kernel.NotifErrno(listener, id, unix.EACCES)
			return
		}
		fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pre), flags, 0)
		if err != nil {
			kernel.NotifErrno(listener, id, errnoOf(err))
			return
		}
		defer unix.Close(fd)
		var newFlags uint32
		if cloexec {
			newFlags = unix.O_CLOEXEC
		}
		if _, err := kernel.NotifAddFDSend(listener, id, fd, newFlags); err != nil {
			kernel.NotifErrno(listener, id, errnoOf(err))
		}
	}()
	return outcome{pending: true, fd: -1}, nil
}
