package fileproxy

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
)

// ErrClosed: Serve was called after Close, or after the proxy's thread
// failed to take its own credentials back (it serves nothing after that).
var ErrClosed = errors.New("fileproxy: closed")

// Proxy performs held file calls on one OS thread of its own, which
// takes each caller's file credentials and umask while it acts and its
// own back afterwards. Serve may be called from several goroutines; the
// calls run one at a time.
type Proxy struct {
	reqs chan func()
	// own is the thread's credentials when it started: what it goes back
	// to after each call.
	own       kernel.FSCred
	pid       int
	mu        sync.Mutex
	closed    bool
	rootMntID uint64
	rootIno   uint64
	// broken: the thread could not take its own credentials back.
	broken atomic.Bool
}

// New starts the proxy's thread: locked, with a file-system context
// (cwd, root, umask) of its own, so taking a caller's umask changes no
// other thread. The thread ends with Close.
func New() (*Proxy, error) {
	p := &Proxy{reqs: make(chan func()), pid: os.Getpid()}
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, "/", 0, unix.STATX_INO|unix.STATX_MNT_ID, &st); err != nil {
		return nil, os.NewSyscallError("statx /", err)
	}
	p.rootMntID, p.rootIno = st.Mnt_id, st.Ino
	ready := make(chan error)
	go func() {
		// Never unlocked: the goroutine returns locked, so the thread,
		// with its unshared context, ends instead of serving others.
		runtime.LockOSThread()
		err := kernel.UnshareThreadFS()
		if err == nil {
			p.own, err = kernel.ThreadFSCred()
		}
		ready <- err
		if err != nil {
			return
		}
		for f := range p.reqs {
			f()
		}
	}()
	if err := <-ready; err != nil {
		return nil, fmt.Errorf("fileproxy: start thread: %w", err)
	}
	return p, nil
}

// Close ends the proxy's thread once the call in progress is done.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.reqs)
	}
}

func (p *Proxy) run(f func()) error {
	p.mu.Lock()
	if p.closed || p.broken.Load() {
		p.mu.Unlock()
		return ErrClosed
	}
	done := make(chan struct{})
	// Sent under the lock so Close cannot close the channel in between;
	// the thread takes it at once unless another call is running.
	p.reqs <- func() { f(); close(done) }
	p.mu.Unlock()
	<-done
	return nil
}

// Serve answers a held call if it is one of Syscalls for the native
// arch: it reads the call's path arguments once, resolves them as the
// kernel would for the caller, asks decide about each file (false: the
// call fails with EACCES and is not performed), performs the call with
// the caller's credentials and hands the result over (a new descriptor
// through SECCOMP_IOCTL_NOTIF_ADDFD, or the return value or errno).
// handled=false: not such a call, nothing was answered; the caller
// answers it. With handled=true the call has been answered, unless its
// task died first; err reports a failure of the proxy itself, in which
// case the call was refused (EACCES) if it could still be answered
// (also after Close: ErrClosed).
// decide runs on the proxy's thread with the supervisor's credentials.
func (p *Proxy) Serve(notif *kernel.SeccompNotif, listenerFD int, decide func(Access) bool) (handled bool, accesses []Access, err error) {
	arch, nr, ok := scmp.FromAudit(notif.Data.Arch, int(notif.Data.Nr))
	if !ok || arch != scmp.Native() {
		return false, nil, nil
	}
	name, ok := scmp.Name(arch, nr)
	if !ok || !slices.Contains(handledCalls, name) {
		return false, nil, nil
	}
	h := &held{p: p, notif: notif, listener: listenerFD, name: name, decide: decide}
	if rerr := p.run(h.serve); rerr != nil {
		// Refused, never continued: a proxy that cannot serve must not
		// let the kernel run the call on a path it did not check.
		kernel.NotifErrno(listenerFD, notif.ID, unix.EACCES)
		return true, nil, rerr
	}
	return true, h.accesses, h.err
}

// held is one call being served.
type held struct {
	p        *Proxy
	notif    *kernel.SeccompNotif
	listener int
	name     string
	decide   func(Access) bool
	c        caller
	pidfd    int
	accesses []Access
	err      error
	closers  []int
}

// outcome is the answer to a held call: an errno, a descriptor to hand
// over, or a return value.
type outcome struct {
	// cont: let the kernel run the call after all (see Access.Racy).
	cont bool
	// pending: another thread answers (see openFIFO).
	pending bool
	errno   unix.Errno
	fd      int
	cloexec bool
	val     int64
}

func fail(errno unix.Errno) outcome { return outcome{errno: errno, fd: -1} }
func value(v int64) outcome         { return outcome{val: v, fd: -1} }

func (h *held) serve() {
	defer func() {
		for _, fd := range h.closers {
			unix.Close(fd)
		}
	}()
	h.pidfd = -1
	c, err := readCaller(int(h.notif.PID))
	if err != nil {
		h.finish(fail(unix.EACCES), fmt.Errorf("fileproxy: %s: caller %d: %w", h.name, h.notif.PID, err))
		return
	}
	h.c = c
	h.finish(h.dispatch())
}

// finish answers the call, unless its task is gone.
func (h *held) finish(o outcome, err error) {
	if err != nil && o.errno == 0 && o.fd < 0 {
		o = fail(unix.EACCES)
	}
	h.err = err
	if o.errno != 0 && !o.pending {
		// A call that failed touched nothing (as the audit backend's
		// rules see only successful calls): only the refusals stay.
		kept := h.accesses[:0]
		for _, a := range h.accesses {
			if a.Denied {
				kept = append(kept, a)
			}
		}
		h.accesses = kept
	}
	var aerr error
	switch {
	case o.pending:
	case o.cont:
		aerr = kernel.NotifContinue(h.listener, h.notif.ID)
	case o.errno != 0:
		aerr = kernel.NotifErrno(h.listener, h.notif.ID, o.errno)
	case o.fd >= 0:
		var flags uint32
		if o.cloexec {
			flags = unix.O_CLOEXEC
		}
		_, aerr = kernel.NotifAddFDSend(h.listener, h.notif.ID, o.fd, flags)
		unix.Close(o.fd)
		var errno unix.Errno
		if errors.As(aerr, &errno) && errno != unix.ENOENT {
			// Not installed (EMFILE: the caller's table is full, or over
			// its RLIMIT_NOFILE): the call is still held; it fails so.
			aerr = kernel.NotifErrno(h.listener, h.notif.ID, errno)
		}
	default:
		aerr = kernel.NotifReturn(h.listener, h.notif.ID, o.val)
	}
	// ENOENT: the task died (or was interrupted) while it was held.
	if aerr != nil && !errors.Is(aerr, unix.ENOENT) && h.err == nil {
		h.err = fmt.Errorf("fileproxy: answer %s: %w", h.name, aerr)
	}
}

// check asks decide about one access and records it.
func (h *held) check(path string, op Op) bool {
	a := Access{Path: path, Op: op, Syscall: h.name}
	a.Denied = !h.decide(a)
	h.accesses = append(h.accesses, a)
	return !a.Denied
}

// asCaller runs f with the caller's file credentials and umask on the
// proxy's thread, and takes the thread's own back afterwards. A thread
// that cannot go back is not used again (see restore).
func (h *held) asCaller(f func() outcome) (outcome, error) {
	kernel.SetThreadUmask(h.c.umask)
	if h.p.own.UID == h.c.cred.UID && h.p.own.GID == h.c.cred.GID && h.p.own.CapEff == h.c.cred.CapEff && slices.Equal(h.p.own.Groups, h.c.cred.Groups) {
		return f(), nil
	}
	if err := kernel.SetThreadFSCred(h.c.cred); err != nil {
		h.restore()
		return fail(unix.EACCES), fmt.Errorf("fileproxy: take the credentials of %d: %w", h.c.tid, err)
	}
	o := f()
	h.restore()
	return o, nil
}

// restore takes the thread's own credentials back; a thread that
// cannot is not used again.
func (h *held) restore() {
	if err := kernel.SetThreadFSCred(h.p.own); err != nil {
		h.p.broken.Store(true)
	}
}

// valid: the call still waits for its answer, so what was read about
// its task since it was received was read of that task.
func (h *held) valid() bool { return kernel.NotifIDValid(h.listener, h.notif.ID) }

func (h *held) keep(fd int) int {
	h.closers = append(h.closers, fd)
	return fd
}

func (h *held) procPath(rest string) string {
	return "/proc/" + strconv.Itoa(h.c.tid) + "/" + rest
}
