package netproxy

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
)

// ErrClosed: Serve was called after Close.
var ErrClosed = errors.New("netproxy: closed")

// maxInFlight bounds the calls performed at once, each on a thread of
// its own: a blocking connect to a silent host holds its thread for
// the kernel's SYN timeout (about two minutes).
const maxInFlight = 64

// handledCalls are the calls Serve performs.
var handledCalls = []string{"bind", "connect", "listen", "sendmmsg", "sendmsg", "sendto"}

// Syscalls are the calls a filter makes notify for the proxy to serve,
// for arch (nothing for another arch than the native one, which Serve
// does not serve). A sendto whose address argument (arg 4) is 0 goes
// to the connected peer and may be allowed in the filter instead;
// sendmsg's and sendmmsg's addresses are in memory, so every one of
// them must notify.
func Syscalls(arch scmp.Arch) []string {
	if arch != scmp.Native() {
		return nil
	}
	return slices.Clone(handledCalls)
}

// Proxy performs held socket calls for their callers: each on a locked
// thread of its own that takes the caller's credentials and ends with
// the call, so a blocking connect never stalls the listener.
type Proxy struct {
	slots  chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	errs   []error
}

// New makes a proxy. It starts nothing until Serve.
func New() (*Proxy, error) {
	return &Proxy{slots: make(chan struct{}, maxInFlight)}, nil
}

// Close waits for the calls in flight to be answered and returns the
// failures of the proxy among them (answering, taking credentials).
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return errors.Join(p.errs...)
}

func (p *Proxy) fail(err error) {
	p.mu.Lock()
	p.errs = append(p.errs, err)
	p.mu.Unlock()
}

// Serve answers a held call if it is one of Syscalls on the native
// arch. It reads the call's address (and a send's payload) from the
// caller's memory once, asks decide about that copy (false: the call
// fails with EACCES and is not performed), and has a thread of its own
// perform the call with that copy on a duplicate of the caller's
// socket (the same open file: what it does, the caller's socket did)
// and answer with the result. Serve returns once decide has answered;
// the call may still be running (Close waits for it).
// handled=false: not such a call, nothing was answered. err: a failure
// of the proxy; the call was refused (EACCES) if it could be answered.
// decide runs on Serve's goroutine; for a sendmmsg it is asked about
// each message with an address, in order, up to the first it refuses
// (one Access each).
func (p *Proxy) Serve(notif *kernel.SeccompNotif, listenerFD int, decide func(Access) bool) (handled bool, accesses []Access, err error) {
	arch, nr, ok := scmp.FromAudit(notif.Data.Arch, int(notif.Data.Nr))
	if !ok || arch != scmp.Native() {
		return false, nil, nil
	}
	name, ok := scmp.Name(arch, nr)
	if !ok || !slices.Contains(handledCalls, name) {
		return false, nil, nil
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		kernel.NotifErrno(listenerFD, notif.ID, unix.EACCES)
		return true, nil, ErrClosed
	}
	p.wg.Add(1)
	p.mu.Unlock()
	p.slots <- struct{}{}
	c := &call{notif: notif, listener: listenerFD, name: name, pidfd: -1, sock: -1,
		asked: make(chan []Access), verdict: make(chan int)}
	go func() {
		defer func() { <-p.slots; p.wg.Done() }()
		if err := c.run(); err != nil {
			p.fail(err)
		}
	}()
	// The thread sends nil when it answered without asking (an error, a
	// send on a connected socket).
	accesses = <-c.asked
	if accesses == nil {
		return true, nil, nil
	}
	// In order, up to the first refusal: a sendmmsg's messages after it
	// are not sent, so they are not asked about.
	allowed := 0
	for i := range accesses {
		accesses[i].Denied = !decide(accesses[i])
		if accesses[i].Denied {
			accesses = accesses[:i+1]
			break
		}
		allowed++
	}
	c.verdict <- allowed
	return true, accesses, nil
}

// call is one held call, served on its own thread.
type call struct {
	notif    *kernel.SeccompNotif
	listener int
	name     string
	pidfd    int
	sock     int
	cred     kernel.TaskCred
	// closers: descriptors taken over for the call (SCM_RIGHTS).
	closers []int
	asked   chan []Access
	verdict chan int
	// askedOnce: asked has been sent to (Serve waits for exactly one).
	askedOnce bool
}

// run locks the goroutine to its thread for good: the thread takes the
// caller's credentials and is not given back to the Go scheduler, so it
// ends when run returns.
func (c *call) run() error {
	runtime.LockOSThread()
	defer func() {
		c.release()
		for _, fd := range c.closers {
			unix.Close(fd)
		}
		if c.sock >= 0 {
			unix.Close(c.sock)
		}
		if c.pidfd >= 0 {
			unix.Close(c.pidfd)
		}
	}()
	o, err := c.serve()
	if err != nil && o.errno == 0 {
		o = fail(unix.EACCES)
	}
	if aerr := c.answer(o); aerr != nil && err == nil {
		err = aerr
	}
	if err != nil {
		return fmt.Errorf("netproxy: %s of %d: %w", c.name, c.notif.PID, err)
	}
	return nil
}

// outcome is the answer: an errno or a return value.
type outcome struct {
	errno unix.Errno
	val   int64
}

func fail(errno unix.Errno) outcome { return outcome{errno: errno} }

func (c *call) answer(o outcome) error {
	var err error
	if o.errno != 0 {
		err = kernel.NotifErrno(c.listener, c.notif.ID, o.errno)
	} else {
		err = kernel.NotifReturn(c.listener, c.notif.ID, o.val)
	}
	// ENOENT: the task died (or was interrupted) while it was held.
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("answer: %w", err)
	}
	return nil
}

// ask hands the accesses to Serve, which asks decide about them in
// order, and returns how many were allowed before the first refusal.
func (c *call) ask(accesses ...Access) int {
	c.askedOnce = true
	c.asked <- accesses
	return <-c.verdict
}

// allow asks about one access.
func (c *call) allow(a Access) bool { return c.ask(a) == 1 }

// release lets Serve return without asking: what follows (a send to the
// connected peer) may block, and must not hold up the listener.
func (c *call) release() {
	if !c.askedOnce {
		c.askedOnce = true
		c.asked <- nil
	}
}
