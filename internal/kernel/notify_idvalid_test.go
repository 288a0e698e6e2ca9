package kernel

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel takes the filter's notification lock interruptibly for
// SECCOMP_IOCTL_NOTIF_ID_VALID: a signal to the asking thread (Go's
// preemption) while the agent's threads hold the lock gives EINTR. That
// says nothing about the call. Read as "gone", it made the network proxy
// refuse a live caller's connect (EACCES, seen once in the unprivileged
// security-test on a loaded machine) and the exec check let an exec run
// unrecorded.
func TestNotifIDValidRetriesEINTR(t *testing.T) {
	for _, c := range []struct {
		answers []error
		want    bool
	}{
		{[]error{unix.EINTR, unix.EINTR, nil}, true},
		{[]error{unix.EINTR, unix.ENOENT}, false},
		{[]error{nil}, true},
		{[]error{unix.ENOENT}, false},
	} {
		calls := 0
		saved := idValidIoctl
		idValidIoctl = func(fd int, req uint, arg unsafe.Pointer) error {
			if req != unix.SECCOMP_IOCTL_NOTIF_ID_VALID || *(*uint64)(arg) != 42 {
				t.Fatalf("ioctl %#x on id %d; want ID_VALID on 42", req, *(*uint64)(arg))
			}
			calls++
			return c.answers[calls-1]
		}
		got := NotifIDValid(7, 42)
		idValidIoctl = saved
		if got != c.want || calls != len(c.answers) {
			t.Errorf("answers %v: NotifIDValid = %v after %d ioctls; want %v after %d", c.answers, got, calls, c.want, len(c.answers))
		}
	}
}
