package fileproxy

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/notifytest"
	"github.com/sysgate/sysgate/internal/scmp"
)

// BenchmarkOpen measures one open+close of a small file: bare, held and
// continued by a supervisor (what a racy observer costs), and held and
// performed by the Proxy (what the race-free one costs). The caller is
// a thread of this process; the supervisor a goroutine.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(worldDir(b), "f") // 65534 can reach it
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("bare", func(b *testing.B) { benchOpens(b, path, nil) })
	b.Run("continue", func(b *testing.B) {
		benchOpens(b, path, func(*kernel.SeccompNotif) (bool, error) { return false, nil })
	})
	b.Run("proxy", func(b *testing.B) { benchProxy(b, path, nil) })
	b.Run("proxy-other-uid", func(b *testing.B) {
		// A caller of another uid: the proxy switches its thread's
		// credentials twice per open.
		if os.Geteuid() != 0 {
			b.Skip("[root]: needs root to act as another uid")
		}
		benchProxy(b, path, func() error {
			return kernel.SetThreadFSCred(kernel.FSCred{UID: 65534, GID: 65534})
		})
	})
}

func benchProxy(b *testing.B, path string, prep func() error) {
	p, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var lfd int
	benchOpensWith(b, path, &lfd, prep, func(n *kernel.SeccompNotif) (bool, error) {
		handled, _, err := p.Serve(n, lfd, allowAll)
		return handled, err
	})
}

func benchOpens(b *testing.B, path string, serve func(*kernel.SeccompNotif) (bool, error)) {
	var lfd int
	benchOpensWith(b, path, &lfd, nil, serve)
}

// benchOpensWith opens path b.N times on a locked thread, under the
// file-call filter when serve is not nil (the listener's number is put
// in *lfd for serve before the first call), after prep when not nil.
func benchOpensWith(b *testing.B, path string, lfd *int, prep func() error, serve func(*kernel.SeccompNotif) (bool, error)) {
	ready, start, done := make(chan error), make(chan struct{}), make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the filter leaves with the thread
		if prep != nil {
			if err := prep(); err != nil {
				ready <- err
				return
			}
		}
		if serve != nil {
			if err := kernel.SetNoNewPrivs(); err != nil {
				ready <- err
				return
			}
			fd, err := kernel.InstallKillableListenerFilter(notifytest.Filter(Syscalls(scmp.Native())))
			if err != nil {
				ready <- err
				return
			}
			*lfd = fd
		}
		ready <- nil
		<-start
		for range b.N {
			fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				done <- err
				return
			}
			unix.Close(fd)
		}
		done <- nil
	}()
	if err := <-ready; err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	if serve != nil {
		defer unix.Close(*lfd)
		go func() { served <- notifytest.ServeUntilHangUp(*lfd, serve) }()
	}
	b.ResetTimer()
	close(start)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if serve != nil {
		if err := <-served; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCaller is the part of each proxied call that reads the
// caller's credentials and umask (/proc/N/status).
func BenchmarkReadCaller(b *testing.B) {
	tid := unix.Gettid()
	for range b.N {
		if _, err := readCaller(tid); err != nil {
			b.Fatal(err)
		}
	}
}
