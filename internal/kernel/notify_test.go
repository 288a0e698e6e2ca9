package kernel

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// notifyGetpriority makes getpriority(2) notify, everything else pass: a
// syscall the Go runtime never makes on its own.
var notifyGetpriority = []unix.SockFilter{
	{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
	{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_GETPRIORITY, Jt: 0, Jf: 1},
	{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
	{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
}

// TestNotifRecvAndAnswer holds getpriority on a thread of its own, reads
// its register arguments through the listener, and answers first with an
// errno, then with CONTINUE.
func TestNotifRecvAndAnswer(t *testing.T) {
	type call struct {
		prio int
		err  error
	}
	fds, calls, next := make(chan int, 1), make(chan call), make(chan struct{})
	tids := make(chan int, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the filter leaves with the thread
		if err := SetNoNewPrivs(); err != nil {
			calls <- call{err: err}
			return
		}
		fd, err := InstallListenerFilter(notifyGetpriority)
		if err != nil {
			calls <- call{err: err}
			return
		}
		tids <- unix.Gettid()
		fds <- fd
		for range 2 {
			prio, err := unix.Getpriority(unix.PRIO_PROCESS, 4242)
			calls <- call{prio, err}
			<-next
		}
	}()
	var fd int
	select {
	case fd = <-fds:
		defer unix.Close(fd)
	case c := <-calls:
		t.Fatalf("install: %v", c.err)
	}

	var n SeccompNotif
	if err := NotifRecv(fd, &n); err != nil {
		t.Fatal(err)
	}
	if n.Data.Nr != unix.SYS_GETPRIORITY || n.Data.Args[0] != unix.PRIO_PROCESS || n.Data.Args[1] != 4242 {
		t.Fatalf("notification %+v: want getpriority(PRIO_PROCESS, 4242)", n.Data)
	}
	// The notification names the calling task: the thread, not the process.
	if tid := <-tids; int(n.PID) != tid {
		t.Errorf("notification pid %d, want the calling thread %d", n.PID, tid)
	}
	if err := NotifErrno(fd, n.ID, unix.EACCES); err != nil {
		t.Fatal(err)
	}
	if c := <-calls; !errors.Is(c.err, unix.EACCES) {
		t.Fatalf("answered EACCES, the thread got %v", c.err)
	}
	next <- struct{}{}

	if err := NotifRecv(fd, &n); err != nil {
		t.Fatal(err)
	}
	if err := NotifContinue(fd, n.ID); err != nil {
		t.Fatal(err)
	}
	// CONTINUE runs the real call: pid 4242 most likely does not exist.
	if c := <-calls; c.err != nil && !errors.Is(c.err, unix.ESRCH) {
		t.Fatalf("continued call failed with %v", c.err)
	}
	next <- struct{}{}
}
