package kernel

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompNotifAddfd mirrors struct seccomp_notif_addfd.
type seccompNotifAddfd struct {
	ID         uint64
	Flags      uint32
	SrcFD      uint32
	NewFD      uint32
	NewFDFlags uint32
}

// NotifAddFDSend installs a copy of srcfd in the task behind the held
// call id and then answers the call with the new descriptor's number:
// the caller gets exactly the file the supervisor opened, and no answer
// is sent without it. newFDFlags takes O_CLOEXEC only. It returns the
// number the caller got.
//
// It does not use SECCOMP_ADDFD_FLAG_SEND, which does both in one
// ioctl: the kernel marks the call answered before it waits for the
// caller to take the descriptor, and a signal to this thread in that
// wait (Go's preemption, a child's SIGCHLD) takes the descriptor back
// but leaves the call answered with 0. The caller's open returned 0,
// a descriptor it never opened, and the restarted ioctl failed
// EINPROGRESS (or ENOENT once the caller had gone on): seen as a false
// "answer openat: ioctl(SECCOMP_IOCTL_NOTIF_SEND): operation now in
// progress" under load (issue 42). Without the flag an interrupted
// ADDFD either installed nothing (the kernel took the request back,
// and it is sent again) or returns the number it installed, and the
// call stays held until NOTIF_SEND. Between the two the caller waits
// killable (InstallKillableListenerFilter, as agents are spawned): only
// its death ends the wait, and the descriptor goes with it.
func NotifAddFDSend(listener int, id uint64, srcfd int, newFDFlags uint32) (int, error) {
	req := seccompNotifAddfd{ID: id, SrcFD: uint32(srcfd), NewFDFlags: newFDFlags}
	for {
		r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_ADDFD, uintptr(unsafe.Pointer(&req)))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return -1, os.NewSyscallError("ioctl(SECCOMP_IOCTL_NOTIF_ADDFD)", errno)
		}
		return int(r), NotifReturn(listener, id, int64(r))
	}
}

// NotifReturn answers the held call with val as its successful return
// value, for calls the supervisor performed itself.
func NotifReturn(listener int, id uint64, val int64) error {
	return notifSend(listener, seccompNotifResp{ID: id, Val: val})
}

// PidfdGetfd duplicates descriptor targetfd of the process behind pidfd
// into this process (close-on-exec). It needs ptrace access to that
// process (PTRACE_MODE_ATTACH_REALCREDS).
func PidfdGetfd(pidfd, targetfd int) (int, error) {
	fd, err := unix.PidfdGetfd(pidfd, targetfd, 0)
	if err != nil {
		return -1, os.NewSyscallError("pidfd_getfd", err)
	}
	return fd, nil
}

// Openat2 is openat2(2) with the how struct given by value, retried on
// EINTR and EAGAIN (RESOLVE_IN_ROOT and RESOLVE_BENEATH give EAGAIN
// when a rename raced the lookup).
func Openat2(dirfd int, path string, how unix.OpenHow) (int, error) {
	for range 16 {
		fd, err := unix.Openat2(dirfd, path, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return -1, os.NewSyscallError("openat2", err)
		}
		return fd, nil
	}
	return -1, os.NewSyscallError("openat2", unix.EAGAIN)
}

// ReadMemBytes reads exactly n bytes at addr in process pid's memory
// (a struct argument, such as openat2's how), with the access
// ReadMemString needs.
func ReadMemBytes(pid int, addr uint64, n int) ([]byte, error) {
	buf := make([]byte, n)
	got, err := readMem(pid, addr, buf)
	if err != nil {
		return nil, err
	}
	if got != n {
		return nil, os.NewSyscallError("process_vm_readv", unix.EFAULT)
	}
	return buf, nil
}

// InstallKillableListenerFilter is InstallListenerFilter with
// SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19+): once the
// supervisor has received a held call, only a fatal signal ends the
// wait. A supervisor that performs calls itself needs it: otherwise a
// signal (Go's preemption, SIGCHLD) between its action and its answer
// makes the caller restart a call that already happened (a second
// O_EXCL create fails EEXIST, a FIFO's other end was already paired).
func InstallKillableListenerFilter(prog []unix.SockFilter) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return -1, os.NewSyscallError("seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER|SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)", errno)
	}
	return int(fd), nil
}
