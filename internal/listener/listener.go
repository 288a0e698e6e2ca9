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
type Answer struct {
	kind  answerKind
	errno unix.Errno
}

type answerKind int

const (
	answerContinue answerKind = iota + 1
	answerHold
	answerFail
)

// Answers.
var (
	Continue = Answer{kind: answerContinue} // let it run as if nothing had held it
	Hold     = Answer{kind: answerHold}     // leave it held: its process is about to be killed
	// Answered: someone else answered it already (a file call the
	// notify backend's proxy performed and handed over): send nothing.
	Answered = Answer{kind: answerHold}
)

// Fail makes the held syscall fail with errno, without running it.
func Fail(errno unix.Errno) Answer { return Answer{kind: answerFail, errno: errno} }

// Decide picks the answer for one held syscall. It runs on the serving
// goroutine, one call at a time, and must not block.
type Decide func(*kernel.SeccompNotif) Answer

// Listener serves the listener fd of a run's filter until every process
// of the run is gone or Close is called. The fd sits in Go's netpoller: a
// run costs no thread of its own while nothing is held.
type Listener struct {
	f      *os.File
	fd     int
	decide Decide
	done   chan struct{}

	mu  sync.Mutex
	err error
}

// Serve takes ownership of fd, a seccomp listener, and starts answering
// its notifications with decide.
func Serve(fd int, decide Decide) (*Listener, error) {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listener: %w", os.NewSyscallError("fcntl", err))
	}
	l := &Listener{f: os.NewFile(uintptr(fd), "seccomp-listener"), fd: fd, decide: decide, done: make(chan struct{})}
	rc, err := l.f.SyscallConn()
	if err != nil {
		l.f.Close()
		return nil, fmt.Errorf("listener: %w", err)
	}
	go l.serve(rc)
	return l, nil
}

func (l *Listener) serve(rc interface {
	Read(func(fd uintptr) bool) error
}) {
	defer close(l.done)
	for {
		var stop bool
		var serr error
		err := rc.Read(func(fd uintptr) bool {
			in, hup, err := kernel.PollListener(int(fd))
			switch {
			case err != nil:
				serr, stop = err, true
				return true
			case hup:
				stop = true
				return true
			case !in:
				return false // wait in the netpoller
			}
			var n kernel.SeccompNotif
			if err := kernel.NotifRecv(int(fd), &n); err != nil {
				if !errors.Is(err, unix.ENOENT) { // ENOENT: its caller died first
					serr, stop = err, true
				}
				return true
			}
			var aerr error
			switch a := l.decide(&n); a.kind {
			case answerContinue:
				aerr = kernel.NotifContinue(int(fd), n.ID)
			case answerFail:
				aerr = kernel.NotifErrno(int(fd), n.ID, a.errno)
			}
			if aerr != nil && !errors.Is(aerr, unix.ENOENT) {
				serr, stop = aerr, true
			}
			return true // look again: the netpoller is edge-triggered
		})
		if err != nil {
			return // Close
		}
		if serr != nil {
			l.mu.Lock()
			l.err = fmt.Errorf("listener: %w", serr)
			l.mu.Unlock()
		}
		if stop {
			return
		}
	}
}

// OverFd is the listener fd, for polling together with other fds: it is
// ready when the run is over, and also (briefly) while a held call waits
// to be received; check Over after it is ready.
func (l *Listener) OverFd() int { return l.fd }

// Over reports whether every process of the run has exited.
func (l *Listener) Over() bool {
	_, hup, err := kernel.PollListener(l.fd)
	return err == nil && hup
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
	deadline := time.Now().Add(d)
	for {
		if l.Over() {
			return nil
		}
		if err := l.Err(); err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return ErrOpen
		}
		if _, err := kernel.WaitReady([]int{l.fd}, max(1, int(left.Milliseconds()))); err != nil {
			return fmt.Errorf("listener: %w", err)
		}
	}
}

// Close stops serving and closes the listener. Calls still held then fail
// with ENOSYS, as does every later call the filter would notify.
func (l *Listener) Close() error {
	err := l.f.Close()
	<-l.done
	return err
}
