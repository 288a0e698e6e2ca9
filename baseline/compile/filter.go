package compile

import (
	"errors"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// ErrCompile is matched by every error of Compile.
var ErrCompile = errors.New("compile filter")

// ErrNotSupported is matched by Compile's error where sysgate was built
// without the filter compiler: it needs Linux and cgo (libseccomp).
var ErrNotSupported = errors.New("compiling a seccomp filter needs Linux and cgo (libseccomp)")

// Options tune Compile.
type Options struct {
	// Action for syscalls outside the profile in ModeEnforce: ActionErrno
	// (EPERM, the default when zero) or ActionKill.
	Action baseline.Action
	// Linear keeps libseccomp's default rule order instead of the binary
	// tree (SCMP_FLTATR_CTL_OPTIMIZE=2); for measurements.
	Linear bool
	// Notify compiles for the notify backend: what record and check log
	// and what enforce refuses, and the refused channels, return
	// SECCOMP_RET_USER_NOTIF instead, for the run's listener to record
	// and answer (continue, or the errno the filter would have
	// returned). What the profile allows is allowed in the kernel, as
	// for the audit backend.
	Notify bool
	// ArgBlind switches argument classes off: a class entry allows its
	// syscall with any arguments, and record learns syscall names only.
	// For measurements, and for showing what the classes catch.
	ArgBlind bool
	// Programs hands every execve and execveat the filter lets run to
	// the run's listener (the filter then Notifies), which reads the
	// program it names and answers. An exec that enforce refuses stays
	// refused in the kernel.
	Programs bool
	// ProxiedCalls, under Notify, are syscalls (by name) the filter hands
	// to the listener even where the profile allows them: the notify
	// backend's file and network observers perform each for the caller
	// and see the path or address it reached (see notify/fileproxy and
	// notify/netproxy). The listener then judges the call's class
	// itself.
	ProxiedCalls []string
	// Scheduling, when set, overrides how the profile's files treat the
	// built-in scheduling group (baseline.Profile.WithScheduling): the
	// CLI's --scheduling.
	Scheduling scheduling.Mode
}

// Filter is a compiled seccomp filter.
type Filter struct {
	Mode baseline.Mode
	// Tree reports libseccomp's binary-tree layout (the default; older
	// libseccomp without it gets the linear layout, which is as correct).
	Tree    bool
	Arches  []scmp.Arch  // native first, then the profile's other arches
	Program []SockFilter // ready for seccomp(SECCOMP_SET_MODE_FILTER)
	// Listener is the run filter, installed with a listener before the
	// agent's setup; see compileListener.
	Listener []SockFilter
	// Notifies: the program returns SECCOMP_RET_USER_NOTIF, so the agent
	// must load it with a listener that the run serves. It does under the
	// notify backend, and under audit whenever argument classes are on:
	// audit records carry no arguments, so the calls of classed syscalls
	// that the profile does not allow (all of them, in record mode) go to
	// the listener, which reads the class from their registers.
	Notifies bool
	// Implied maps, per arch, a classed syscall to the class its logged
	// calls have: where the filter sends a syscall's other calls to the
	// listener, it logs its common class (argSplit.common), and an audit
	// record of it names that class.
	Implied map[scmp.Arch]map[string]string
}

// LoggedKey is the key of a logged call of name on arch under this filter:
// name's implied class, or name itself.
func (f *Filter) LoggedKey(arch scmp.Arch, name string) string {
	if f == nil {
		return name
	}
	if class, ok := f.Implied[arch][name]; ok {
		return argclass.ClassKey(name, class)
	}
	return name
}
