package kernel

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNotifAddFDSendUnderSignals hands a descriptor to 3000 held calls
// while the supervisor's thread gets a storm of signals (as Go's
// preemption and a child's SIGCHLD send), both threads on one CPU so
// that the caller runs only after the supervisor has blocked. With
// SECCOMP_ADDFD_FLAG_SEND the kernel marks the call answered before it
// waits for the caller; a signal in that wait takes the descriptor
// back but leaves the call answered with 0 (the caller's getpriority
// returned 0, the restarted ioctl EINPROGRESS: issue 42's "answer
// openat: ioctl(SECCOMP_IOCTL_NOTIF_SEND): operation now in progress"),
// within the first 100 calls on every run here. The caller makes the
// call through unix.Syscall, not RawSyscall: a locked goroutine blocked
// in a raw syscall keeps its P, and the test's own goroutine, readied
// onto that P, would wait behind it.
func TestNotifAddFDSendUnderSignals(t *testing.T) {
	const calls = 3000
	var all, cpu0 unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	for c := 0; ; c++ {
		if all.IsSet(c) {
			cpu0.Set(c) // the first CPU this test may use
			break
		}
	}
	type result struct {
		r   uintptr
		err error
	}
	fds, results := make(chan int, 1), make(chan result)
	go func() {
		runtime.LockOSThread() // never unlocked: the filter leaves with the thread
		if err := unix.SchedSetaffinity(0, &cpu0); err != nil {
			results <- result{err: err}
			return
		}
		if err := SetNoNewPrivs(); err != nil {
			results <- result{err: err}
			return
		}
		fd, err := InstallKillableListenerFilter(notifyGetpriority)
		if err != nil {
			results <- result{err: err}
			return
		}
		fds <- fd
		for range calls {
			r, _, errno := unix.Syscall(unix.SYS_GETPRIORITY, unix.PRIO_PROCESS, 4242, 0)
			if errno != 0 {
				results <- result{err: errno}
				continue
			}
			results <- result{r: r}
			if r > 2 {
				unix.Close(int(r))
			}
		}
	}()
	var fd int
	select {
	case fd = <-fds:
		defer unix.Close(fd)
	case r := <-results:
		t.Fatalf("install: %v", r.err)
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.SchedSetaffinity(0, &cpu0); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &all)
	src, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(src)

	pid, tid := unix.Getpid(), unix.Gettid()
	var stop atomic.Bool
	stormDone := make(chan struct{})
	go func() {
		defer close(stormDone)
		for !stop.Load() {
			unix.Tgkill(pid, tid, unix.SIGURG)
		}
	}()
	defer func() { stop.Store(true); <-stormDone }()

	for i := range calls {
		var n SeccompNotif
		if err := NotifRecv(fd, &n); err != nil {
			t.Fatal(err)
		}
		got, err := NotifAddFDSend(fd, n.ID, src, 0)
		if err != nil {
			r := <-results
			t.Fatalf("call %d: %v (the caller got %d, %v)", i, err, r.r, r.err)
		}
		r := <-results
		if r.err != nil || int(r.r) != got {
			t.Fatalf("call %d: handed over descriptor %d, the caller got %d (%v)", i, got, r.r, r.err)
		}
	}
}
