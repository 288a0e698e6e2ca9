// Package scheduling is sysgate's built-in group of the syscalls whose
// appearance in a run of an unchanged program depends on scheduling and
// timing alone, and which have no effect outside the calling process.
//
// Every baseline allows them on every arch it lists, in check and enforce,
// unless it asks for them exactly ("scheduling: exact", or the CLI's
// --scheduling exact); record does not write them while they are grouped.
// With exact, a member outside the baseline is still a violation, but the
// reports call it scheduling-dependent, never a behaviour change.
//
// The members and the data they come from are in docs/scheduling.md
// (measured with tools/cmd/schedvary). It is a leaf: the standard library
// only, no cgo, no privileges, no errors but ParseMode's.
package scheduling

import (
	"fmt"
	"sort"
)

// GroupName is the group's name in reports and in Entry.Group.
const GroupName = "scheduling"

// Member is one syscall of the group and why whether a run makes it is
// the scheduler's choice, and why it changes nothing outside the caller.
type Member struct {
	Name string
	// Varies: what makes the call appear in some runs and not others.
	Varies string
	// Confined: the kernel reason the call has no effect outside the
	// calling process, whatever its arguments.
	Confined string
	// Effect: what it does, in a few words, for reports and exports.
	Effect string
}

// Members are the group, sorted by name. A name an arch does not have
// (clock_nanosleep_time64 exists on 32-bit arches only) is simply absent
// there.
var Members = []Member{
	{
		Name:     "clock_nanosleep",
		Effect:   "sleeps the calling thread",
		Varies:   "glibc's sleep, nanosleep(3) and CPython's subprocess wait with a timeout (which sleeps only when the child is not reaped at its first look) call it only when there is something left to wait for",
		Confined: "it suspends the calling thread until a time on a clock it only reads; it changes no state, and a signal ends it early",
	},
	{
		Name:     "clock_nanosleep_time64",
		Effect:   "sleeps the calling thread",
		Varies:   "clock_nanosleep's 64-bit-time twin on 32-bit arches (arm, i386)",
		Confined: "as clock_nanosleep: it only suspends the calling thread",
	},
	{
		Name:     "getpid",
		Effect:   "tells the caller its own process ID",
		Varies:   "Go's runtime asks it only to address an asynchronous preemption signal to one of its own threads (tgkill(getpid(), tid, SIGURG)), which it sends when a goroutine has run for 10 ms without yielding: a busy or loaded machine makes that happen",
		Confined: "it returns the caller's process ID and changes no state",
	},
	{
		Name:     "nanosleep",
		Effect:   "sleeps the calling thread",
		Varies:   "spin-then-sleep back-offs (Go's runtime, older libcs' sleep) sleep only when a lock or a child was not ready in time",
		Confined: "it suspends the calling thread for a relative time on CLOCK_MONOTONIC; it changes no state",
	},
	{
		Name:     "restart_syscall",
		Effect:   "resumes the calling thread's interrupted wait",
		Varies:   "the kernel makes it when a signal interrupts a sleep, poll or futex wait that it can resume: whether a signal lands during such a wait is timing",
		Confined: "it resumes only the calling thread's own interrupted call from the restart block the kernel saved for that thread (without one it fails with EINTR); the filter saw and allowed the original call",
	},
	{
		Name:     "sched_yield",
		Effect:   "gives up the calling thread's CPU",
		Varies:   "threads that spin on a contended lock (node's and V8's worker threads, Go's runtime, glibc's adaptive mutexes) yield only when they contend",
		Confined: "it moves the calling thread to the end of its run queue; no argument, no state, nothing another process can observe beyond the CPU time it gives up",
	},
	{
		// A class key: tgkill with any other signal stays exact.
		Name:     "tgkill(SIGURG)",
		Effect:   "sends SIGURG, whose default action is to be ignored",
		Varies:   "Go's runtime signals its own thread with it to preempt a goroutine that has run for 10 ms without yielding (and to stop one for the garbage collector): whether a goroutine runs that long depends on the machine's load",
		Confined: "the filter cannot tell the caller's own thread group from another's, so this is the one member that can reach another process of the same user; but SIGURG's default action is to ignore it, so it cannot stop, end or dump a process, and one that handles it (Go's runtime, a program using out-of-band socket data) only runs its handler; any other signal is tgkill's own class, outside the group",
	},
}

var byName = func() map[string]*Member {
	m := map[string]*Member{}
	for i := range Members {
		m[Members[i].Name] = &Members[i]
	}
	return m
}()

// Is reports whether name is a member: a syscall name, or for a member
// that is one class of its syscall, that class's key ("tgkill(SIGURG)").
func Is(name string) bool { return byName[name] != nil }

// Lookup returns the member called name.
func Lookup(name string) (Member, bool) {
	if m := byName[name]; m != nil {
		return *m, true
	}
	return Member{}, false
}

// Names are the members' names, sorted.
func Names() []string {
	out := make([]string, len(Members))
	for i, m := range Members {
		out[i] = m.Name
	}
	sort.Strings(out)
	return out
}

// Split separates names into the members and the rest, each in the order
// given.
func Split(names []string) (members, others []string) {
	for _, n := range names {
		if Is(n) {
			members = append(members, n)
		} else {
			others = append(others, n)
		}
	}
	return members, others
}

// Mode is how a baseline treats the group. The zero value means "not
// said": a stack with no file saying exact groups them.
type Mode int

const (
	// Grouped: every member is allowed (the default).
	Grouped Mode = iota + 1
	// Exact: members are syscalls like any other; a run that makes one
	// the baseline does not list fails.
	Exact
)

// String is the mode as a baseline file and the CLI write it.
func (m Mode) String() string {
	switch m {
	case Grouped:
		return "grouped"
	case Exact:
		return "exact"
	}
	return ""
}

// ParseMode reads "grouped" or "exact".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "grouped":
		return Grouped, nil
	case "exact":
		return Exact, nil
	}
	return 0, fmt.Errorf("scheduling %q: want grouped (the default: the scheduling-dependent syscalls %v are always allowed) or exact", s, Names())
}

// Reason is the one line reports and exports give a member: why it is in
// the group.
func Reason(name string) string {
	m, ok := Lookup(name)
	if !ok {
		return ""
	}
	return "built-in: whether a run makes it depends on scheduling alone; it only " + m.Effect
}

// File is a file whose read depends on scheduling alone, allowed for
// reading with the syscalls (never for any other access).
type File struct {
	Path string
	// Varies and Confined as for Member.
	Varies, Confined string
}

// Files are the group's files, sorted by path. glibc's get_nprocs and
// get_nprocs_conf (sysconf(_SC_NPROCESSORS_ONLN/_CONF)) read them; a
// runtime that sizes a pool only when work first contends (node's
// filesystem MCP server: 3 of 30 checks on audit, tools/bench's
// false-alarm section) reads them in some runs only.
var Files = []File{
	{
		Path:     "/sys/devices/system/cpu/online",
		Varies:   "glibc's get_nprocs reads it when a runtime asks for the number of online CPUs, which node and V8 do when they first size a pool of threads under contention",
		Confined: "a read of the list of online CPUs, which sched_getaffinity(2) and sysinfo(2) give every process; it changes nothing",
	},
	{
		Path:     "/sys/devices/system/cpu/possible",
		Varies:   "glibc's get_nprocs_conf reads it when a runtime asks for the number of configured CPUs, as lazily as get_nprocs",
		Confined: "a read of the list of possible CPUs, fixed at boot and world-readable; it changes nothing",
	},
}

// FileReason is the reason reports give the group's allowance of a read
// of path ("" for a path that is not the group's).
func FileReason(path string) string {
	for _, f := range Files {
		if f.Path == path {
			return "built-in: whether a run reads it depends on scheduling alone; it only tells how many CPUs there are"
		}
	}
	return ""
}
