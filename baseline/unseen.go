package baseline

import (
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

// Channel is a syscall that lets an agent act where the seccomp filter
// cannot see: the kernel runs the work it starts without another syscall
// entry, or the agent's own code decides it unlogged. Record, check and
// enforce refuse it by default; a baseline may let it through only by
// naming it in its unmonitored section, with a reason, and every report of
// such a run then says what went unseen.
type Channel struct {
	Syscall string
	// Errno the refused call fails with.
	Errno unix.Errno
	// Listener: only a call asking for a seccomp listener
	// (SECCOMP_FILTER_FLAG_NEW_LISTENER in its flags, arg 1) is refused;
	// filters without one stay allowed.
	Listener bool
	// Unseen says what goes unseen when the channel is open.
	Unseen string
}

// Channels are the channels refused by default.
//
//   - io_uring: operations submitted through a ring (a socket, an open, a
//     connect) never pass seccomp. ENOSYS, as under Docker's default
//     profile: libraries then fall back to plain syscalls, which the gate
//     sees. io_uring_enter and io_uring_register need a ring fd that only
//     io_uring_setup makes, but they are refused too, so no ring handed in
//     from outside the run works either.
//   - seccomp with a listener: a filter of the agent's own that returns
//     SECCOMP_RET_USER_NOTIF outranks the gate's LOG, and a thread that
//     answers SECCOMP_USER_NOTIF_FLAG_CONTINUE runs the call unlogged.
//     Other filters stay allowed: the actions they can return that outrank
//     LOG either stop the syscall (ERRNO, TRAP, KILL) or, for TRACE, make
//     the kernel run every filter again after the tracer. The run filter's
//     own listener already makes the kernel refuse a second one (EBUSY);
//     this rule does not depend on it, and it shows the attempt.
//   - clone3 and openat2: their flags sit in a struct behind a pointer,
//     which the filter cannot read, so no argument class can tell a thread
//     from a new user namespace, or a read from a create. ENOSYS, as
//     Docker's default profile does for clone3: libc then falls back to
//     clone and openat, whose flags are registers the classes read.
var Channels = []Channel{
	{Syscall: "clone3", Errno: unix.ENOSYS, Unseen: "the namespaces and flags of clone3's struct clone_args"},
	{Syscall: "openat2", Errno: unix.ENOSYS, Unseen: "the access and create flags of openat2's struct open_how"},
	{Syscall: "io_uring_setup", Errno: unix.ENOSYS, Unseen: "operations submitted through an io_uring"},
	{Syscall: "io_uring_enter", Errno: unix.ENOSYS, Unseen: "operations submitted through an io_uring"},
	{Syscall: "io_uring_register", Errno: unix.ENOSYS, Unseen: "operations submitted through an io_uring"},
	{Syscall: "seccomp", Errno: unix.EPERM, Listener: true, Unseen: "syscalls answered by the agent's own seccomp listener"},
}

// ChannelOf returns the channel a syscall opens, if any.
func ChannelOf(name string) (Channel, bool) {
	for _, c := range Channels {
		if c.Syscall == name {
			return c, true
		}
	}
	return Channel{}, false
}

// Unmonitored is a channel a baseline opted in to: the filter lets it
// through, and what the agent does through it goes unseen.
type Unmonitored struct {
	Arch    scmp.Arch `json:"arch"`
	Syscall string    `json:"syscall"`
	Reason  string    `json:"reason"` // the baseline's reason
	Unseen  string    `json:"unseen"` // what goes unseen (Channel.Unseen)
	File    string    `json:"file"`
	Line    int       `json:"line"`
}
