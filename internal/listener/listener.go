package listener

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ErrOpen is returned by Wait when the deadline passed and members of the
// run still hold the filter.
var ErrOpen = errors.New("processes of the run still hold its seccomp filter")

// Listener is the listener fd of a run's filter.
type Listener struct {
	mu sync.Mutex
	fd int
}

// New takes ownership of fd, a seccomp listener.
func New(fd int) *Listener { return &Listener{fd: fd} }

// Fd is the listener fd, for polling together with other fds (it is
// ready when the run is over; kernel.WaitReady treats POLLHUP as ready).
// It is -1 after Close.
func (l *Listener) Fd() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fd
}

// Over reports, without blocking, whether every process of the run has
// exited and been reaped.
func (l *Listener) Over() (bool, error) {
	fd := l.Fd()
	if fd < 0 {
		return false, errors.New("listener closed")
	}
	over, err := kernel.ListenerHungUp(fd)
	if err != nil {
		return false, fmt.Errorf("listener: %w", err)
	}
	return over, nil
}

// Wait blocks until the run is over or d passes (ErrOpen).
func (l *Listener) Wait(d time.Duration) error {
	fd := l.Fd()
	if fd < 0 {
		return errors.New("listener closed")
	}
	deadline := time.Now().Add(d)
	for {
		over, err := l.Over()
		if err != nil || over {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return ErrOpen
		}
		// A pending notification (POLLIN) would make poll return at once
		// without the run being over; only filters that never notify are
		// waited on this way.
		if _, err := kernel.WaitReady([]int{fd}, int(left.Milliseconds())+1); err != nil {
			return fmt.Errorf("listener: %w", err)
		}
	}
}

// Close closes the fd. Processes still holding the filter are unaffected
// by a listener that is gone, except that syscalls the filter would notify
// fail with ENOSYS.
func (l *Listener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd < 0 {
		return nil
	}
	err := unix.Close(l.fd)
	l.fd = -1
	return err
}
