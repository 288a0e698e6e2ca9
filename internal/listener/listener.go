package listener

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ErrOpen is returned by Wait when the deadline passed and processes of
// the run still hold its filter.
var ErrOpen = errors.New("processes of the run still hold its seccomp filter")

// Answer is what the listener does with a held syscall.
type Answer int

// Answers.
const (
	Continue Answer = iota + 1 // let it run as if nothing had held it
	Hold                       // leave it held: its process is about to be killed
)

// Decide picks the answer for one held syscall. It runs on the serving
// goroutine, one call at a time, and must not block.
type Decide func(*kernel.SeccompNotif) Answer

// Listener serves the listener fd of a run's filter on a goroutine of its
// own until every process of the run is gone or Close is called.
type Listener struct {
	fd           int
	decide       Decide
	overR, overW *os.File // overW is closed once the run is over
	stopR, stopW *os.File
	done         chan struct{}

	mu   sync.Mutex
	over bool
	err  error
}

// Serve takes ownership of fd, a seccomp listener, and starts answering
// its notifications with decide.
func Serve(fd int, decide Decide) (*Listener, error) {
	l := &Listener{fd: fd, decide: decide, done: make(chan struct{})}
	var err error
	if l.overR, l.overW, err = os.Pipe(); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listener: %w", err)
	}
	if l.stopR, l.stopW, err = os.Pipe(); err != nil {
		unix.Close(fd)
		l.overR.Close()
		l.overW.Close()
		return nil, fmt.Errorf("listener: %w", err)
	}
	go l.serve()
	return l, nil
}

func (l *Listener) serve() {
	defer close(l.done)
	stop := int(l.stopR.Fd())
	for {
		ready, err := kernel.WaitReady([]int{l.fd, stop}, -1)
		if err != nil {
			l.fail(err)
			return
		}
		if len(ready) > 0 && ready[len(ready)-1] == 1 {
			return // Close
		}
		hungUp, err := kernel.ListenerHungUp(l.fd)
		if err != nil {
			l.fail(err)
			return
		}
		if hungUp {
			l.mu.Lock()
			l.over = true
			l.mu.Unlock()
			l.overW.Close()
			return
		}
		var n kernel.SeccompNotif
		if err := kernel.NotifRecv(l.fd, &n); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // the caller died before we could receive it
			}
			l.fail(err)
			return
		}
		if l.decide(&n) == Hold {
			continue
		}
		if err := kernel.NotifContinue(l.fd, n.ID); err != nil && !errors.Is(err, unix.ENOENT) {
			l.fail(err)
			return
		}
	}
}

// fail records why serving stopped early. The run's calls that notify
// then wait until Close, and fail with ENOSYS after it.
func (l *Listener) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = fmt.Errorf("listener: %w", err)
	l.overW.Close() // wake whoever waits: Err says why
}

// OverFd becomes readable once the run is over (every process holding
// its filter has exited), or serving failed (Err): for polling together
// with other fds.
func (l *Listener) OverFd() int { return int(l.overR.Fd()) }

// Over reports whether every process of the run has exited.
func (l *Listener) Over() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.over
}

// Err is why serving stopped before the run was over, or nil.
func (l *Listener) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Wait blocks until the run is over (nil), serving failed (Err), or d
// passes (ErrOpen).
func (l *Listener) Wait(d time.Duration) error {
	ready, err := kernel.WaitReady([]int{l.OverFd()}, max(0, int(d.Milliseconds())))
	switch {
	case err != nil:
		return fmt.Errorf("listener: %w", err)
	case len(ready) == 0:
		return ErrOpen
	}
	if err := l.Err(); err != nil {
		return err
	}
	return nil
}

// Close stops serving and closes the listener. Calls still held then fail
// with ENOSYS, as does every later call the filter would notify.
func (l *Listener) Close() error {
	l.stopW.Close()
	<-l.done
	l.stopR.Close()
	l.overR.Close()
	l.overW.Close()
	return unix.Close(l.fd)
}
