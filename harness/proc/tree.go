package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// killDeadline bounds the kill loop: a fork bomb that outruns it makes the
// run inconclusive instead of hanging the harness.
const killDeadline = 10 * time.Second

// Outcome is what supervising one run's process tree found.
type Outcome struct {
	TimedOut  bool
	Cancelled bool
	Leaked    []verdict.Leak
	// LeaksNotKept counts the killed processes past MaxKept in Leaked.
	LeaksNotKept uint64
	Err          error // tracking failed: the run cannot be trusted
}

// Supervise waits for the root (through its pidfd), then for the rest
// of the run for at most grace, and kills whatever is left. The run's
// listener says when the run is over: every process of the run holds the
// run filter, so the listener hangs up only once the last of them has
// exited, however the tree forked, double-forked or hopped on the way. The
// audit session id (which no process of the run can change, the shim took
// CAP_AUDIT_CONTROL away) lists the processes to kill.
func Supervise(ctx context.Context, root Root, ses Members, run RunEnd, timeout, grace time.Duration) Outcome {
	out := supervise(ctx, root, ses, run, timeout, grace)
	if run.Over() {
		awaitExiting(ses)
	}
	return out
}

// Members lists the processes of a run for the kill loop: by its audit
// session, which no process of the run can leave, where the run has one;
// else (the notify backend without root) as the descendants of its init,
// the PID namespace's or the run's subreaper, which no process of the run
// can leave either.
type Members struct {
	ses     uint32
	audited bool
	init    int
}

func (m Members) list() ([]kernel.Info, error) {
	if m.audited {
		return kernel.SessionMembers(m.ses)
	}
	if m.init <= 0 {
		return nil, nil
	}
	return kernel.Descendants(m.init)
}

// still reports whether the live process behind a pidfd opened on
// info.PID after the listing is the member listed, not a process that
// took its pid since.
func (m Members) still(info kernel.Info) bool {
	if m.audited {
		s, err := kernel.ReadSession(info.PID)
		return err == nil && s == m.ses
	}
	st, err := kernel.ReadStat(info.PID)
	return err == nil && st.Start() == info.Start
}

func (m Members) String() string {
	if m.audited {
		return fmt.Sprintf("audit session %d", m.ses)
	}
	return fmt.Sprintf("the descendants of the run's init (pid %d)", m.init)
}

// Root names the processes a run starts with: the agent's first
// process, and the init of the run's PID namespace (pid -1 without one).
type Root struct {
	pidfd, pid         int
	initPidfd, initPid int
	pidns              bool // init is a PID namespace's (else a subreaper, or none)
}

// group is the process group of the run: init's session (it called
// setsid) when there is one, else the agent's.
func (r Root) group() int {
	if r.initPid > 0 {
		return r.initPid
	}
	return r.pid
}

func supervise(ctx context.Context, root Root, ses Members, run RunEnd, timeout, grace time.Duration) Outcome {
	cancelR, stop, err := ContextFd(ctx)
	if err != nil {
		return killTree(ses, root, verdict.CauseCancelled, run, Outcome{Err: err})
	}
	defer stop()

	var out Outcome
	ready, err := kernel.WaitReady([]int{root.pidfd, cancelR}, msUntil(timeout))
	switch {
	case err != nil:
		out.Err = err
		return killTree(ses, root, verdict.CauseCancelled, run, out)
	case len(ready) == 0:
		out.TimedOut = true
		return killTree(ses, root, verdict.CauseTimeout, run, out)
	case ready[0] != 0:
		return killTree(ses, root, out.Stopped(ctx), run, out)
	}

	// The listener fd is also ready while a held call waits to be
	// received: look again until the run is over or the grace ends.
	graceEnd := time.Now().Add(grace)
	fds := append(run.OverFds(), cancelR)
	for !run.Over() {
		if err := run.Err(); err != nil {
			out.Err = err
			return killTree(ses, root, verdict.CauseOutlived, run, out)
		}
		ready, err := kernel.WaitReady(fds, max(0, int(time.Until(graceEnd).Milliseconds())))
		switch {
		case err != nil:
			out.Err = err
			return killTree(ses, root, verdict.CauseOutlived, run, out)
		case len(ready) == 0 && !run.Over():
			return killTree(ses, root, verdict.CauseOutlived, run, out)
		case len(ready) > 0 && ready[len(ready)-1] == len(fds)-1:
			return killTree(ses, root, out.Stopped(ctx), run, out)
		}
	}
	return out
}

// Stopped records why ctx ended the run: its deadline counts as the run's
// timeout, anything else as a cancellation.
func (o *Outcome) Stopped(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		o.TimedOut = true
		return verdict.CauseTimeout
	}
	o.Cancelled = true
	return verdict.CauseCancelled
}

// rescanWait bounds a wait in the kill loop before the session is listed
// again: a process forked between a listing and the kills is found by the
// next listing.
const rescanWait = 20 * time.Millisecond

// killTree SIGKILLs every live process of ses, again and again, until the
// run's listener says the run is over, recording each one (but the agent's
// first process and init) as a Leak with cause. A run still open after
// killDeadline makes the result inconclusive, naming the pids still alive.
//
// Each round stops the run's process group at once (the launcher makes
// the run a session and group of its own), which no fork escapes, lists
// and kills the run's processes, then kills the run's PID namespace (its
// init: every process in it dies at once, and nothing forks past that)
// and the group. Without a PID namespace (isolation unavailable), a
// process that left the group (setsid, setpgid) is left to the listings,
// and one that keeps forking its successor faster than they find it
// outlives killDeadline: the run is inconclusive.
func killTree(ses Members, root Root, cause string, run RunEnd, out Outcome) Outcome {
	deadline := time.Now().Add(killDeadline)
	seen := map[int]bool{}
	unaccounted := false
	for !run.Over() {
		if err := run.Err(); err != nil {
			out.Err = errors.Join(out.Err, err)
			return out
		}
		// Stopped, the group cannot fork, and the listing names all of it.
		// init leads that group, but it forks nothing and must reap what
		// is killed: it goes on at once (a stopped init at the end of the
		// run is something an agent did, reported as such).
		signalRunGroup(root.group(), unix.SIGSTOP)
		if root.initPidfd >= 0 {
			_ = kernel.PidfdSignal(root.initPidfd, unix.SIGCONT)
		}
		members, err := ses.list()
		switch {
		case errors.Is(err, kernel.ErrUnaccounted):
			// A process that may be the run's hides from the scan: the
			// run cannot be called finished by the scan, so it is
			// inconclusive; the members found are killed all the same.
			if !unaccounted {
				unaccounted = true
				out.Err = errors.Join(out.Err, fmt.Errorf("%s: %w", ses, err))
			}
		case err != nil:
			out.Err = errors.Join(out.Err, err)
			return out
		}
		if run == nil && len(members) == 0 {
			return out
		}
		if time.Now().After(deadline) {
			pids := make([]string, len(members))
			for i, m := range members {
				pids[i] = fmt.Sprintf("%d (%s)", m.PID, m.Comm)
			}
			out.Err = errors.Join(out.Err, fmt.Errorf("the run was still open %v after the first SIGKILL; alive in %s: %s",
				killDeadline, ses, orNone(strings.Join(pids, ", "))))
			return out
		}
		fds := run.OverFds()
		listed := len(fds)
		for _, m := range members {
			// Listed while its group was stopped: it outlived the agent,
			// whatever the kills below find of it.
			if m.PID != root.pid && m.PID != root.initPid && !seen[m.PID] {
				seen[m.PID] = true
				if len(out.Leaked) < verdict.MaxKept {
					out.Leaked = append(out.Leaked, verdict.Leak{PID: m.PID, Exe: m.Exe, Comm: m.Comm, Lived: m.Lived(), Cause: cause})
				} else {
					out.LeaksNotKept++
				}
			}
			if m.PID == root.initPid {
				continue // killed below, after the listing is used up
			}
			fd, ok := openMember(m, ses)
			if !ok {
				continue // gone already
			}
			if err := kernel.PidfdSignal(fd, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
				out.Err = errors.Join(out.Err, err)
			}
			fds = append(fds, fd)
		}
		if root.initPidfd >= 0 && root.pidns {
			// The PID namespace dies with its init, every process at once.
			// (A subreaper init is left to exit by itself once the run is
			// gone: killed first, it would let the rest go to the host's.)
			_ = kernel.PidfdSignal(root.initPidfd, unix.SIGKILL)
		}
		signalRunGroup(root.group(), unix.SIGKILL) // and what the listing missed
		if len(fds) == listed {
			// Nobody to kill, yet the run is open: a fork raced the
			// listing. Wait a little for the end, then list again.
			_, _ = kernel.WaitReady(fds, int(min(rescanWait, max(time.Millisecond, time.Until(deadline))).Milliseconds()))
			continue
		}
		waitAnyExited(fds, deadline)
		closeAll(fds[listed:])
	}
	return out
}

// signalRunGroup sends sig to the run's process group, whose id is the
// pid of the run's first process (init, or the agent): the launcher makes
// it a session and group leader of its own. Only processes forked inside
// that session can be in the group, and that process is not reaped before
// the kills end, so its pid, the group's id, cannot have been reused.
func signalRunGroup(pgid int, sig unix.Signal) {
	_ = kernel.SignalGroup(pgid, sig) // ESRCH: no such group, or it is gone
}

// exitingWait bounds the wait for processes that have dropped the run
// filter but not yet finished exiting.
const exitingWait = time.Second

// awaitExiting waits until the processes the session still lists have
// finished exiting. A task drops its seccomp filter early in exit, so the
// listener can hang up while /proc still shows it; it can make no syscall
// any more, but callers expect the run to be gone when Run returns.
func awaitExiting(ses Members) {
	members, _ := ses.list() // those it could read
	if len(members) == 0 {
		return
	}
	var fds []int
	for _, m := range members {
		if fd, err := kernel.PidfdOpen(m.PID); err == nil {
			fds = append(fds, fd)
		}
	}
	defer closeAll(fds)
	deadline := time.Now().Add(exitingWait)
	for _, fd := range fds {
		if time.Now().After(deadline) {
			return
		}
		_, _ = kernel.WaitReady([]int{fd}, max(1, int(time.Until(deadline).Milliseconds())))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none visible (zombies not yet reaped, or processes outside this pid namespace's view)"
	}
	return s
}

// waitAnyExited blocks until one of fds is ready (a killed process exited,
// or the run is over) or the deadline passes.
func waitAnyExited(fds []int, deadline time.Time) {
	_, _ = kernel.WaitReady(fds, max(1, int(time.Until(deadline).Milliseconds())))
}

// openMember opens a pidfd for m if it is still a live process of the
// run. A member seen in a scan may have exited and its pid been reused
// since: its membership (session, or start time) is read again after the
// open, and the pidfd's process must still be alive after that read, so
// the /proc entry read was the pidfd's own process and never an unrelated
// one we would kill.
func openMember(m kernel.Info, ses Members) (int, bool) {
	fd, err := kernel.PidfdOpen(m.PID)
	if err != nil {
		return -1, false
	}
	still := ses.still(m)
	exited, eerr := kernel.PidfdExited(fd)
	if !still || eerr != nil || exited {
		unix.Close(fd)
		return -1, false
	}
	return fd, true
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// msUntil converts a timeout to poll(2) milliseconds; 0 means none (-1).
func msUntil(d time.Duration) int {
	if d <= 0 {
		return -1
	}
	return max(1, int(d.Milliseconds()))
}

// ContextFd returns an fd that becomes readable when ctx ends, for poll(2)
// together with pidfds, and a stop func that releases it.
func ContextFd(ctx context.Context) (fd int, stop func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return -1, nil, err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		w.Close()
	}()
	return int(r.Fd()), func() { close(done); r.Close() }, nil
}

// RunEnd says when a run is over: its listener hangs up once the last
// process holding the run's filter has exited (harness's run listener).
// A nil one is a run without a listener (an abandoned run of a harness
// that died): never over by itself, so the kill loop ends when the
// members list nobody.
type RunEnd interface {
	Over() bool
	Err() error
	// OverFds are the descriptors that become readable when the run is
	// over, for polling (none without a listener).
	OverFds() []int
}

// NewMembers lists a run's processes by its audit session (audited) or
// as the descendants of its init.
func NewMembers(ses uint32, audited bool, init int) Members {
	return Members{ses: ses, audited: audited, init: init}
}

// NewRoot names the agent's first process and the init of the run's PID
// namespace (initPid -1 without one; pidns: init is a namespace's).
func NewRoot(pidfd, pid, initPidfd, initPid int, pidns bool) Root {
	return Root{pidfd: pidfd, pid: pid, initPidfd: initPidfd, initPid: initPid, pidns: pidns}
}
