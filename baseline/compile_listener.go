package baseline

import (
	"fmt"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

// ForkCalls are the syscalls that create a process or a thread.
var ForkCalls = []string{"clone", "clone3", "fork", "vfork"}

// compileListener builds the run filter, installed before everything else
// in the agent's first process and carrying the run's listener. It allows
// every syscall except the process-creation calls that the main filter
// allows too: those notify the listener, so the harness can hold them
// while it kills the run (a fork-hopping chain cannot outrun a kill it
// cannot fork past). A process-creation call the main filter does not
// allow is left to it: USER_NOTIF outranks LOG and would hide it.
//
// Record mode allows everything here: its main filter logs every call, and
// a notification would take the call out of the log.
func compileListener(p *Profile, mode Mode, arches []scmp.Arch) ([]unix.SockFilter, error) {
	if mode == ModeRecord || p == nil {
		return allowAll(), nil
	}
	return exportMerged("listener filter", arches, func(arch scmp.Arch) (*seccomp.ScmpFilter, error) {
		var notify []string
		for _, name := range ForkCalls {
			if p.Allows(arch, name) {
				notify = append(notify, name)
			}
		}
		return listenerArchFilter(arch, arches[0], notify)
	})
}

func listenerArchFilter(arch, native scmp.Arch, notify []string) (*seccomp.ScmpFilter, error) {
	f, err := newArchFilter(arch, native, seccomp.ActAllow, seccomp.ActAllow)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Release()
		}
	}()
	for _, name := range notify {
		call, err := seccomp.GetSyscallFromName(name)
		if err != nil {
			return nil, fmt.Errorf("syscall %q: %w", name, err)
		}
		if err := f.AddRule(call, seccomp.ActNotify); err != nil {
			return nil, fmt.Errorf("syscall %q: %w", name, err)
		}
	}
	ok = true
	return f, nil
}

// allowAll is a one-instruction program that allows every syscall.
func allowAll() []unix.SockFilter {
	return []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
}
