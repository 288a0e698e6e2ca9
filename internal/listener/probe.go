package listener

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ErrNotSupported is returned (wrapped) by Supported on a kernel whose
// seccomp listener cannot tell when a run is over.
var ErrNotSupported = errors.New("seccomp listener hang-up not supported by this kernel")

// AllowAll is the sentinel filter: it changes no syscall's outcome (ALLOW
// is the lowest precedence of stacked filters) and exists for its
// listener.
var AllowAll = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}

// probeWait bounds the probe's wait for the hang-up; the exit of one
// thread is normally seen within a millisecond.
const probeWait = 2 * time.Second

// Supported checks once per process that a listener fd is available and
// hangs up when its last task is gone (Linux 5.8+): the probe installs the
// sentinel filter on a thread of its own that then exits.
var Supported = sync.OnceValue(func() error {
	fds := make(chan int, 1)
	errs := make(chan error, 1)
	onDisposableThread(func() {
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
	})
	var l *Listener
	select {
	case err := <-errs:
		return fmt.Errorf("%w: %w (needs Linux 5.8+ with CONFIG_SECCOMP_FILTER)", ErrNotSupported, err)
	case fd := <-fds:
		var err error
		if l, err = Serve(fd, func(*kernel.SeccompNotif) Answer { return Continue }); err != nil {
			return fmt.Errorf("%w: %w", ErrNotSupported, err)
		}
	}
	defer l.Close()
	if err := l.Wait(probeWait); err != nil {
		return fmt.Errorf("%w: the listener did not hang up after its only thread exited: %w (needs Linux 5.8+)", ErrNotSupported, err)
	}
	return nil
})

// onDisposableThread runs fn on a goroutine locked to a thread that exits
// when fn returns, taking its seccomp filter and no_new_privs with it. The
// main thread never exits: a goroutine that lands there keeps it busy and
// hands fn to another.
func onDisposableThread(fn func()) {
	go func() {
		runtime.LockOSThread() // not unlocked: the thread ends with fn
		if kernel.OnMainThread() {
			onDisposableThread(fn)
			runtime.UnlockOSThread()
			return
		}
		fn()
	}()
}
