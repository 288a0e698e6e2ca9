package harness

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
)

// notifier is the notify backend's side of a run: the run's listener
// hands it every call the filter did not allow (see baseline's
// Options.Notify); it turns each into the event the audit backend
// would have read, for the same collector, and answers as the mode says.
// Only the call's registers are read (nr, arch, instruction pointer,
// arguments), never the caller's memory.
type notifier struct {
	events  *collector
	profile *baseline.Profile
	mode    baseline.Mode
	kill    bool // enforce with ActionKill
	// argBlind: argument classes are off; calls are named by syscall.
	argBlind bool
	fd       int // the listener, for NOTIF_ID_VALID
	// cache holds callers' identities by thread id in record mode, where
	// every call comes here: a thread's entry goes at its execve and
	// exit. Check and enforce, which see few calls, read each afresh.
	cache map[uint32]kernel.TaskIdent
	// unnamed counts calls whose caller sysgate could not name: its pid
	// is not visible here (0), or it was gone before it could be read.
	unnamed atomic.Uint64
	mu      sync.Mutex
	killErr error
	// book collects the programs the run's execs run (nil when programs
	// are not observed, see WithoutPrograms); gated: the profile has a
	// programs section, so enforce refuses an exec of a program outside it.
	book  *programBook
	gated bool
	// launchDir is the absolute directory the launcher starts the agent
	// in (see readExec).
	launchDir string
	// pin says which programs an exec hashes, and which from a cache
	// (nil: all, none from it): see pinWanted.
	pin func(path string) kernel.Sum
	// held: the workspace's programs the baselines list, hashed before
	// the agent started (heldPrograms; nil in record mode).
	held map[string]string
	// files serves the file calls (notify backend, files observed).
	files *notifyFiles
	// net serves the socket calls (notify backend, network observed).
	net *notifyNet
}

// newNotifier serves the run's listener. Under the notify backend
// (everything) it sees every call outside the profile; under audit only
// the calls of classed syscalls outside it (all of them, in record mode),
// while the audit stream has the rest.
func newNotifier(events *collector, p *baseline.Profile, mode baseline.Mode, action baseline.Action, everything bool) *notifier {
	n := &notifier{events: events, profile: p, mode: mode, kill: mode == baseline.ModeEnforce && action == baseline.ActionKill}
	if mode == baseline.ModeRecord {
		n.cache = map[uint32]kernel.TaskIdent{}
	}
	if everything {
		// Only the listener's channel refusals carry an ERRNO code.
		events.refusal = func(ev *observe.Syscall) bool {
			return ev.Action&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_ERRNO
		}
	}
	return n
}

// decide runs on the listener's goroutine, one call at a time.
func (n *notifier) decide(notif *kernel.SeccompNotif) listener.Answer {
	arch, nr, ok := scmp.FromAudit(notif.Data.Arch, int(notif.Data.Nr))
	name, key := strconv.Itoa(nr), ""
	if ok {
		name = scmp.NameOrNumber(arch, nr)
		// The class of the call, from its registers: "socket(AF_INET)".
		key = name
		if !n.argBlind {
			key = argclass.Classify(arch, name, notif.Data.Args)
		}
	} else {
		arch, key = 0, name
	}
	ev := &observe.Syscall{Arch: arch, Number: nr, Name: key, Action: unix.SECCOMP_RET_USER_NOTIF}
	id, named := n.ident(notif)
	ev.PID, ev.Comm, ev.Exe = id.PID, id.Comm, id.Exe
	if !named {
		n.unnamed.Add(1)
	}
	if n.cache != nil && (name == "execve" || name == "execveat" || name == "exit" || name == "exit_group") {
		delete(n.cache, notif.PID)
	}
	if answer, done := n.serveFile(notif, arch, name, ev, id); done {
		return answer
	}
	if answer, done := n.serveNet(notif, arch, name, ev, id); done {
		return answer
	}
	if n.book != nil && ok && name == "exit_group" {
		// The process ends on its own: /proc still shows the program an
		// earlier exec ran, which may have lived too short for the
		// watcher.
		n.book.exiting(id.PID)
		if n.mode != baseline.ModeRecord && n.profile.Allows(arch, name) {
			return listener.Continue
		}
	}
	if (n.book != nil || n.files != nil) && ok && (name == "execve" || name == "execveat") {
		if answer, done := n.exec(notif, arch, name, id); done {
			return answer
		}
	}
	answer := listener.Continue
	if c, refused := n.refusedChannel(arch, name, notif); refused {
		ev.Action = unix.SECCOMP_RET_ERRNO | uint32(c.Errno)
		answer = listener.Fail(c.Errno)
	} else if n.mode == baseline.ModeEnforce {
		answer = listener.Fail(unix.EPERM)
		if n.kill {
			// KILL_PROCESS: the call never runs; the held task dies.
			n.killCaller(notif, id)
			answer = listener.Hold
		}
	}
	n.events.add(ev)
	return answer
}

// exec reads an exec's program for the book (nil without programs) and
// the files it opens for the file observer (nil without files, and
// under audit). done: the call is answered without an event, as one the
// profile allows; otherwise it goes on as any call outside the profile
// (and in enforce is refused, so runs nothing).
func (n *notifier) exec(notif *kernel.SeccompNotif, arch scmp.Arch, name string, id kernel.TaskIdent) (listener.Answer, bool) {
	allowed := n.mode != baseline.ModeRecord && n.profile.Allows(arch, name)
	if n.mode == baseline.ModeEnforce && !allowed {
		return listener.Continue, false
	}
	e := readExec(int(notif.PID), id.PID, arch, notif.Data.Arch, name, notif.Data.Args, kernel.ProgramPath(id.Exe), id.Comm, n.launchDir, n.pin, n.files != nil)
	if !kernel.NotifIDValid(n.fd, notif.ID) {
		// The caller is gone (a fatal signal): its exec never runs, and
		// what was read may be another process's.
		return listener.Continue, allowed
	}
	if n.book == nil {
		n.files.exec(e, name)
		return listener.Continue, allowed
	}
	// The agent's start is the caller's command line, not the agent's
	// doing: enforce reports it, as check does, rather than fail the
	// start.
	if n.mode == baseline.ModeEnforce && n.gated && e.parent != "" {
		if !e.claimed() {
			// Unreadable, or no file: refused as the kernel refuses a
			// missing one, so a path changed after the read runs nothing.
			n.book.refuse(e)
			return listener.Fail(unix.ENOENT), true
		}
		for _, r := range e.runs {
			if !n.profile.AllowsProgram(r.Path) {
				n.book.refuse(e)
				return listener.Fail(unix.EPERM), true
			}
		}
	}
	if n.mode != baseline.ModeRecord {
		// A program its baseline pins by content must be that content:
		// a path the agent can write names whatever it wrote there.
		runs, why := pinMismatches(n.profile, n.held, e)
		for i := range runs {
			n.book.pinMismatch(runs[i], why[i])
		}
		if len(runs) > 0 && n.mode == baseline.ModeEnforce && e.parent != "" {
			n.book.refuse(e)
			return listener.Fail(unix.EPERM), true
		}
	}
	n.book.exec(e)
	if n.files != nil {
		n.files.exec(e, name)
	}
	return listener.Continue, allowed
}

// refusedChannel tells a channel call the filter refuses (see
// baseline.Channels) from one the default sent here: a seccomp call
// without a listener reaches the listener only when the baselines do not
// allow seccomp, and is then an ordinary call outside them.
func (n *notifier) refusedChannel(arch scmp.Arch, name string, notif *kernel.SeccompNotif) (baseline.Channel, bool) {
	c, ok := baseline.ChannelOf(name)
	if !ok || !arch.Valid() || n.profile.IsUnmonitored(arch, name) {
		return c, false
	}
	if c.Listener && uint32(notif.Data.Args[1])&unix.SECCOMP_FILTER_FLAG_NEW_LISTENER == 0 {
		return c, false
	}
	return c, true
}

// ident names the caller: its thread group, name and executable. named is
// false when it could not be read, or the caller was gone before the read
// was known to be its own (its pid may have been reused).
func (n *notifier) ident(notif *kernel.SeccompNotif) (kernel.TaskIdent, bool) {
	if notif.PID == 0 {
		return kernel.TaskIdent{}, false // not visible in this PID namespace
	}
	if id, ok := n.cache[notif.PID]; ok {
		return id, true
	}
	id, err := kernel.ReadTaskIdent(int(notif.PID))
	if err != nil || !kernel.NotifIDValid(n.fd, notif.ID) {
		return kernel.TaskIdent{PID: int(notif.PID)}, false
	}
	if n.cache != nil {
		n.cache[notif.PID] = id
	}
	return id, true
}

// killCaller SIGKILLs the caller's process while its call is held.
func (n *notifier) killCaller(notif *kernel.SeccompNotif, id kernel.TaskIdent) {
	fd, err := kernel.PidfdOpen(id.PID)
	if err == nil {
		defer unix.Close(fd)
		// The pidfd names a live process; the call still waiting means
		// its pid was not reused in between.
		if kernel.NotifIDValid(n.fd, notif.ID) {
			err = kernel.PidfdSignal(fd, unix.SIGKILL)
		}
	}
	if err != nil && !errors.Is(err, unix.ESRCH) {
		n.mu.Lock()
		n.killErr = err
		n.mu.Unlock()
	}
}

// err is why the run's enforcement failed: a caller that could not be
// killed (enforce with ActionKill).
func (n *notifier) err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.killErr != nil {
		return fmt.Errorf("enforce: could not kill a caller: %w", n.killErr)
	}
	return nil
}
