package kernel

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SeccompData mirrors the kernel's struct seccomp_data: what a filter and
// a listener see of one syscall (register arguments only, never memory).
type SeccompData struct {
	Nr                 int32
	Arch               uint32
	InstructionPointer uint64
	Args               [6]uint64
}

// SeccompNotif mirrors struct seccomp_notif: one syscall held for the
// listener. PID is in the listener's pid namespace (0 if not visible).
type SeccompNotif struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Data  SeccompData
}

// seccompNotifResp mirrors struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// InstallListenerFilter loads prog on the calling thread with
// SECCOMP_FILTER_FLAG_NEW_LISTENER and returns the listener fd (close-on-
// exec). Every task that inherits the filter holds it; once the last of
// them has been reaped the fd polls POLLHUP (Linux 5.8+). The thread needs
// no_new_privs or CAP_SYS_ADMIN; a filter tree that already has a listener
// refuses a second one (EBUSY).
func InstallListenerFilter(prog []unix.SockFilter) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return -1, os.NewSyscallError("seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)", errno)
	}
	return int(fd), nil
}

// ListenerHungUp reports, without blocking, whether every task holding the
// listener's filter is gone.
func ListenerHungUp(fd int) (bool, error) {
	_, hup, err := PollListener(fd)
	return hup, err
}

// PollListener reports, without blocking, whether a held syscall waits to
// be received (in) and whether every task holding the filter is gone
// (hup).
func PollListener(fd int) (in, hup bool, err error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, false, os.NewSyscallError("poll", err)
		}
		return fds[0].Revents&unix.POLLIN != 0, fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0, nil
	}
}

// NotifRecv waits for the next held syscall. ENOENT means the task that
// made it died (or was interrupted) before it could be received: callers
// skip it.
func NotifRecv(fd int, n *SeccompNotif) error {
	*n = SeccompNotif{} // the kernel wants it zeroed
	for {
		err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return os.NewSyscallError("ioctl(SECCOMP_IOCTL_NOTIF_RECV)", err)
		}
		return nil
	}
}

// NotifContinue lets the held syscall run as if no filter had held it.
func NotifContinue(fd int, id uint64) error {
	return notifSend(fd, seccompNotifResp{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE})
}

// NotifErrno fails the held syscall with errno.
func NotifErrno(fd int, id uint64, errno unix.Errno) error {
	return notifSend(fd, seccompNotifResp{ID: id, Error: -int32(errno)})
}

func notifSend(fd int, resp seccompNotifResp) error {
	for {
		err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return os.NewSyscallError("ioctl(SECCOMP_IOCTL_NOTIF_SEND)", err)
		}
		return nil
	}
}

func ioctlPtr(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// NotifIDValid reports whether the held call id still waits for an
// answer: its task is alive, so what was read about that task's pid
// since the call was received was read of that task. The kernel takes
// the filter's notification lock interruptibly for the question: EINTR
// (a signal to this thread, Go's preemption, while the caller's threads
// hold the lock) says nothing about the call and is asked again, as
// NOTIF_SEND and NOTIF_ADDFD are sent again.
func NotifIDValid(fd int, id uint64) bool {
	for {
		err := idValidIoctl(fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id))
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// idValidIoctl is the ioctl NotifIDValid makes (a test answers it).
var idValidIoctl = ioctlPtr
