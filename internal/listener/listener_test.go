package listener

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// notifyGetpriority makes getpriority(2) notify, everything else pass: a
// syscall the Go runtime never makes on its own.
var notifyGetpriority = []unix.SockFilter{
	{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
	{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_GETPRIORITY, Jt: 0, Jf: 1},
	{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
	{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
}

// thread is a locked OS thread holding a listener filter: it runs the
// functions sent to it and exits (taking the filter along) on stop.
type thread struct {
	run  chan func()
	stop chan struct{}
}

// onThread installs prog on a new thread and serves its listener with
// decide.
func onThread(t *testing.T, prog []unix.SockFilter, decide Decide) (*Listener, *thread) {
	t.Helper()
	fds, errs := make(chan int, 1), make(chan error, 1)
	th := &thread{run: make(chan func()), stop: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with us
		if err := kernel.SetNoNewPrivs(); err != nil {
			errs <- err
			return
		}
		fd, err := kernel.InstallListenerFilter(prog)
		if err != nil {
			errs <- err
			return
		}
		fds <- fd
		for {
			select {
			case f := <-th.run:
				f()
			case <-th.stop:
				return
			}
		}
	}()
	select {
	case err := <-errs:
		t.Fatalf("install listener filter: %v", err)
	case fd := <-fds:
		l, err := Serve(fd, decide)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l, th
	}
	return nil, nil
}

func (th *thread) end() {
	select {
	case <-th.stop:
	default:
		close(th.stop)
	}
}

func always(a Answer) Decide { return func(*kernel.SeccompNotif) Answer { return a } }

func TestListenerOpenWhileItsThreadLives(t *testing.T) {
	l, th := onThread(t, AllowAll, always(Continue))
	defer th.end()
	if l.Over() {
		t.Fatal("over while the filter's thread lives")
	}
	if err := l.Wait(20 * time.Millisecond); !errors.Is(err, ErrOpen) {
		t.Fatalf("Wait = %v, want ErrOpen", err)
	}
}

func TestListenerOverWhenItsThreadExits(t *testing.T) {
	l, th := onThread(t, AllowAll, always(Continue))
	th.end()
	if err := l.Wait(10 * time.Second); err != nil {
		t.Fatalf("Wait after the thread exited: %v", err)
	}
	if !l.Over() || l.Err() != nil {
		t.Fatalf("Over %v, Err %v after the thread exited", l.Over(), l.Err())
	}
}

func TestListenerContinuesAndHolds(t *testing.T) {
	var hold atomic.Bool
	var seen atomic.Int32
	l, th := onThread(t, notifyGetpriority, func(n *kernel.SeccompNotif) Answer {
		seen.Add(1)
		if n.Data.Nr != unix.SYS_GETPRIORITY {
			t.Errorf("notified of syscall %d", n.Data.Nr)
		}
		if hold.Load() {
			return Hold
		}
		return Continue
	})
	defer th.end()
	result := make(chan error, 1)
	call := func() { _, err := unix.Getpriority(unix.PRIO_PROCESS, 0); result <- err }

	th.run <- call
	if err := <-result; err != nil {
		t.Fatalf("continued getpriority: %v", err)
	}
	hold.Store(true)
	th.run <- call
	select {
	case err := <-result:
		t.Fatalf("a held call returned (%v)", err)
	case <-time.After(50 * time.Millisecond):
		// Held, as meant. 50 ms is only how long we look, not a sync.
	}
	// Closing the listener releases the held call with ENOSYS.
	l.Close()
	if err := <-result; !errors.Is(err, unix.ENOSYS) {
		t.Fatalf("held call after Close: %v, want ENOSYS", err)
	}
	if seen.Load() != 2 {
		t.Fatalf("decide called %d times, want 2", seen.Load())
	}
}

func TestSupported(t *testing.T) {
	if err := Supported(); err != nil {
		t.Fatalf("this kernel (5.8+ expected here): %v", err)
	}
}

func TestSecondListenerInTheSameTreeIsRefused(t *testing.T) {
	// What an agent under sysgate gets when it asks for a listener of its
	// own: the tree's one listener is sysgate's.
	_, th := onThread(t, AllowAll, always(Continue))
	defer th.end()
	errs := make(chan error, 1)
	th.run <- func() {
		fd, err := kernel.InstallListenerFilter(AllowAll)
		if err == nil {
			unix.Close(fd)
		}
		errs <- err
	}
	if err := <-errs; !errors.Is(err, unix.EBUSY) {
		t.Fatalf("second listener: %v, want EBUSY", err)
	}
}

// onThread's goroutine installs a filter on its OS thread and ends it by
// returning while locked. Go never ends the main thread that way (it parks
// it for good), so a filter installed there would hold its listener open
// forever. Locking the main goroutine to the main thread keeps every other
// goroutine off it.
func init() { runtime.LockOSThread() }
