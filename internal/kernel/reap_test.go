package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the child subreaper: orphans of its
// descendants are re-parented to it instead of to init, so it can reap
// them (a zombie still holds its seccomp filter and keeps a run open).
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_SET_CHILD_SUBREAPER)", err)
	}
	return nil
}

// reapPidfd reaps the process behind pidfd if it is a zombie child of
// this process; it does not block. It reports whether it reaped. Not a
// child (ECHILD) or still running: false, nil.
func reapPidfd(pidfd int) (bool, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED|unix.WNOHANG, nil)
		switch err {
		case unix.EINTR:
			continue
		case unix.ECHILD:
			return false, nil
		case nil:
			return info.Signo != 0, nil // si_signo stays 0 when nothing was waited for
		default:
			return false, os.NewSyscallError("waitid(P_PIDFD)", err)
		}
	}
}
