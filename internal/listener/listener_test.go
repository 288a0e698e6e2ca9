package listener

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// onThread installs the sentinel filter on a locked thread of its own and
// returns its listener and a function that ends the thread.
func onThread(t *testing.T) (*Listener, func()) {
	t.Helper()
	fds, errs, stop := make(chan int, 1), make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with us
		if err := kernel.SetNoNewPrivs(); err != nil {
			errs <- err
			return
		}
		fd, err := kernel.InstallListenerFilter(AllowAll)
		if err != nil {
			errs <- err
			return
		}
		fds <- fd
		<-stop
	}()
	select {
	case err := <-errs:
		t.Fatalf("install listener filter: %v", err)
	case fd := <-fds:
		l := New(fd)
		t.Cleanup(func() { l.Close() })
		return l, func() { close(stop) }
	}
	return nil, nil
}

func TestListenerOpenWhileItsThreadLives(t *testing.T) {
	l, stop := onThread(t)
	defer stop()
	over, err := l.Over()
	if err != nil || over {
		t.Fatalf("Over() = %v, %v while the filter's thread lives", over, err)
	}
	if err := l.Wait(20 * time.Millisecond); !errors.Is(err, ErrOpen) {
		t.Fatalf("Wait = %v, want ErrOpen", err)
	}
}

func TestListenerHangsUpWhenItsThreadExits(t *testing.T) {
	l, stop := onThread(t)
	stop()
	if err := l.Wait(5 * time.Second); err != nil {
		t.Fatalf("Wait after the thread exited: %v", err)
	}
	over, err := l.Over()
	if err != nil || !over {
		t.Fatalf("Over() = %v, %v after the thread exited", over, err)
	}
}

func TestClosedListener(t *testing.T) {
	l, stop := onThread(t)
	defer stop()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Fd() != -1 {
		t.Fatalf("Fd after Close = %d", l.Fd())
	}
	if _, err := l.Over(); err == nil {
		t.Fatal("Over on a closed listener: no error")
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
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
	errs := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := kernel.SetNoNewPrivs(); err != nil {
			errs <- err
			return
		}
		fd, err := kernel.InstallListenerFilter(AllowAll)
		if err != nil {
			errs <- err
			return
		}
		defer unix.Close(fd)
		fd2, err := kernel.InstallListenerFilter(AllowAll)
		if err == nil {
			unix.Close(fd2)
		}
		errs <- err
	}()
	if err := <-errs; !errors.Is(err, unix.EBUSY) {
		t.Fatalf("second listener: %v, want EBUSY", err)
	}
}
