package kernel

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// PidfdOpen returns a pidfd (close-on-exec) for pid. A pidfd names one
// process for its whole life, so signalling and waiting through it cannot
// hit a recycled pid.
func PidfdOpen(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1, os.NewSyscallError("pidfd_open", err)
	}
	return fd, nil
}

// PidfdSignal sends sig to the process behind pidfd. ESRCH (already gone,
// possibly a zombie) is returned wrapped; callers usually ignore it.
func PidfdSignal(pidfd int, sig unix.Signal) error {
	if err := unix.PidfdSendSignal(pidfd, sig, nil, 0); err != nil {
		return os.NewSyscallError("pidfd_send_signal", err)
	}
	return nil
}

// PidfdExited reports, without blocking, whether the process behind pidfd
// has exited (a zombie counts as exited). It works for any process, not
// only for children.
func PidfdExited(pidfd int) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	if err != nil && err != unix.EINTR {
		return false, os.NewSyscallError("poll", err)
	}
	return n > 0 && fds[0].Revents != 0, nil
}

// WaitReady blocks until at least one of fds is readable (for a pidfd: its
// process exited) or timeoutMs passes (-1: no timeout). It returns the
// indexes of the ready fds; none on timeout.
func WaitReady(fds []int, timeoutMs int) ([]int, error) {
	polls := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		polls[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	for {
		n, err := unix.Poll(polls, timeoutMs)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, os.NewSyscallError("poll", err)
		}
		var ready []int
		for i := 0; n > 0 && i < len(polls); i++ {
			if polls[i].Revents != 0 {
				ready = append(ready, i)
			}
		}
		return ready, nil
	}
}

// ProcessGroup returns pid's process group id.
func ProcessGroup(pid int) (int, error) {
	pgid, err := unix.Getpgid(pid)
	if err != nil {
		return 0, os.NewSyscallError("getpgid", err)
	}
	return pgid, nil
}

// SignalGroup sends sig to every process of group pgid at once. The kernel
// makes a fork that races it either fail or leave the child in the group
// the signal reaches: no member can fork its way out of one group kill.
func SignalGroup(pgid int, sig unix.Signal) error {
	if pgid <= 1 {
		return os.NewSyscallError("kill", unix.EINVAL)
	}
	if err := unix.Kill(-pgid, sig); err != nil {
		return os.NewSyscallError("kill", err)
	}
	return nil
}

// PidfdPid is the pid, in this process's PID namespace, of the process
// behind pidfd (the "Pid:" line of its fdinfo); -1 once it has been reaped.
func PidfdPid(pidfd int) (int, error) {
	path := "/proc/self/fdinfo/" + strconv.Itoa(pidfd)
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("%s: no Pid line (not a pidfd?)", path)
}

// PidfdOpenThread opens a pidfd for the task tid, which may be any
// thread of its process: a seccomp notification names its caller by
// thread id, and pidfd_open refuses a thread that does not lead its
// group (ENOENT) unless asked with PIDFD_THREAD (Linux 6.9). Where that
// flag is unknown (EINVAL), the pidfd is the thread group's, found in
// /proc/tid/status; the caller must still check the notification is
// valid afterwards, as for any pid read while a call is held.
func PidfdOpenThread(tid int) (int, error) {
	fd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	if err == nil {
		return fd, nil
	}
	if err != unix.EINVAL {
		return -1, os.NewSyscallError("pidfd_open", err)
	}
	cred, err := ReadTaskCred(tid)
	if err != nil {
		return -1, err
	}
	return PidfdOpen(cred.Tgid)
}
