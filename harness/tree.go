package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// Why the harness killed a process of the run.
const (
	CauseOutlived  = "outlived the agent" // still running when the grace period ended
	CauseTimeout   = "timeout"            // the run hit its timeout
	CauseCancelled = "cancelled"          // the caller's context ended
)

// Leak is a process of the run that the harness had to kill.
type Leak struct {
	PID   int           `json:"pid"`
	Exe   string        `json:"exe"`
	Comm  string        `json:"comm"`
	Lived time.Duration `json:"lived"` // nanoseconds, from its start to the kill
	Cause string        `json:"cause"` // CauseOutlived, CauseTimeout or CauseCancelled
}

// killDeadline bounds the kill loop: a fork bomb that outruns it makes the
// run inconclusive instead of hanging the harness.
const killDeadline = 10 * time.Second

// treeOutcome is what supervising one run's process tree found.
type treeOutcome struct {
	TimedOut  bool
	Cancelled bool
	Leaked    []Leak
	Err       error // tracking failed: the run cannot be trusted
}

// superviseTree waits for the root (through its pidfd), then for every
// other process of audit session ses for at most grace, and kills whatever
// is left. The session id marks the tree exactly: every descendant
// inherits it, orphans included, and none can change it because the shim
// took CAP_AUDIT_CONTROL away.
func superviseTree(ctx context.Context, rootPidfd, rootPID int, ses uint32, timeout, grace time.Duration) treeOutcome {
	cancelR, stop, err := contextFd(ctx)
	if err != nil {
		return killTree(ses, rootPID, CauseCancelled, treeOutcome{Err: err})
	}
	defer stop()

	var out treeOutcome
	ready, err := kernel.WaitReady([]int{rootPidfd, cancelR}, msUntil(timeout))
	switch {
	case err != nil:
		out.Err = err
		return killTree(ses, rootPID, CauseCancelled, out)
	case len(ready) == 0:
		out.TimedOut = true
		return killTree(ses, rootPID, CauseTimeout, out)
	case ready[0] != 0:
		return killTree(ses, rootPID, out.stopped(ctx), out)
	}

	graceEnd := time.Now().Add(grace)
	for {
		members, err := liveMembers(ses)
		if err != nil {
			out.Err = err
			return killTree(ses, rootPID, CauseOutlived, out)
		}
		if len(members) == 0 {
			return out
		}
		fds := openPidfds(members, ses)
		if len(fds) == 0 {
			continue // all exited between scan and open: scan again
		}
		ready, err := kernel.WaitReady(append(fds, cancelR), max(0, int(time.Until(graceEnd).Milliseconds())))
		closeAll(fds)
		switch {
		case err != nil:
			out.Err = err
			return killTree(ses, rootPID, CauseOutlived, out)
		case len(ready) == 0:
			return killTree(ses, rootPID, CauseOutlived, out)
		case ready[len(ready)-1] == len(fds):
			return killTree(ses, rootPID, out.stopped(ctx), out)
		}
		// Someone exited; it may have forked first: scan again.
	}
}

// stopped records why ctx ended the run: its deadline counts as the run's
// timeout, anything else as a cancellation.
func (o *treeOutcome) stopped(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		o.TimedOut = true
		return CauseTimeout
	}
	o.Cancelled = true
	return CauseCancelled
}

// liveMembers scans /proc for the session's processes. A walk that finds
// nobody is trusted only if no pid was allocated while it ran (so no
// process appeared behind the walk's position); otherwise it walks again,
// so a process that forked and exited during the first walk is still seen
// through its child.
func liveMembers(ses uint32) ([]kernel.Info, error) {
	before, berr := kernel.LastPID()
	members, err := kernel.SessionMembers(ses)
	if err != nil || len(members) > 0 {
		return members, err
	}
	if after, aerr := kernel.LastPID(); berr == nil && aerr == nil && after == before {
		return nil, nil
	}
	return kernel.SessionMembers(ses)
}

// killTree SIGKILLs every live process of ses until none is left, recording
// each one (but the root) as a Leak with cause.
func killTree(ses uint32, rootPID int, cause string, out treeOutcome) treeOutcome {
	deadline := time.Now().Add(killDeadline)
	seen := map[int]bool{}
	for {
		members, err := liveMembers(ses)
		if err != nil {
			out.Err = errors.Join(out.Err, err)
			return out
		}
		if len(members) == 0 {
			return out
		}
		if time.Now().After(deadline) {
			out.Err = errors.Join(out.Err, fmt.Errorf("%d processes of audit session %d survived SIGKILL for %v", len(members), ses, killDeadline))
			return out
		}
		var fds []int
		for _, m := range members {
			fd, ok := openMember(m.PID, ses)
			if !ok {
				continue // gone already
			}
			if err := kernel.PidfdSignal(fd, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
				out.Err = errors.Join(out.Err, err)
			}
			fds = append(fds, fd)
			if m.PID != rootPID && !seen[m.PID] {
				seen[m.PID] = true
				out.Leaked = append(out.Leaked, Leak{PID: m.PID, Exe: m.Exe, Comm: m.Comm, Lived: m.Lived(), Cause: cause})
			}
		}
		waitAllExited(fds, deadline)
		closeAll(fds)
	}
}

// waitAllExited blocks until every pidfd in fds reports an exit or the
// deadline passes.
func waitAllExited(fds []int, deadline time.Time) {
	pending := append([]int(nil), fds...)
	for len(pending) > 0 && time.Now().Before(deadline) {
		ready, err := kernel.WaitReady(pending, max(1, int(time.Until(deadline).Milliseconds())))
		if err != nil || len(ready) == 0 {
			return
		}
		for i := len(ready) - 1; i >= 0; i-- {
			pending = append(pending[:ready[i]], pending[ready[i]+1:]...)
		}
	}
}

func openPidfds(members []kernel.Info, ses uint32) []int {
	fds := make([]int, 0, len(members))
	for _, m := range members {
		if fd, ok := openMember(m.PID, ses); ok {
			fds = append(fds, fd)
		}
	}
	return fds
}

// openMember opens a pidfd for pid if it is still a live process of
// session ses. A member seen in a scan may have exited and its pid been
// reused since: the session is read again after the open, and the pidfd's
// process must still be alive after that read, so the /proc entry read
// was the pidfd's own process and never an unrelated one we would kill.
func openMember(pid int, ses uint32) (int, bool) {
	fd, err := kernel.PidfdOpen(pid)
	if err != nil {
		return -1, false
	}
	s, err := kernel.ReadSession(pid)
	exited, eerr := kernel.PidfdExited(fd)
	if err != nil || s != ses || eerr != nil || exited {
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

// contextFd returns an fd that becomes readable when ctx ends, for poll(2)
// together with pidfds, and a stop func that releases it.
func contextFd(ctx context.Context) (fd int, stop func(), err error) {
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
