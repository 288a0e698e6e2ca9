//go:build linux && cgo

package kernel

/*
#include "spawn.h"
*/
import "C"

import (
	"os"
	"sync"
	"syscall"
)

// ProbePidNamespace reports whether this process can start a child in a
// PID namespace of its own (CAP_SYS_ADMIN, and no limit set by the host);
// the error says why not.
var ProbePidNamespace = sync.OnceValue(func() error {
	var ret C.int
	syscall.ForkLock.Lock()
	ret = C.sysgate_probe_pidns()
	syscall.ForkLock.Unlock()
	if ret < 0 {
		return os.NewSyscallError("clone(CLONE_NEWPID)", syscall.Errno(-ret))
	}
	return nil
})

// ProbeUserNamespace reports whether this process can start a child in a
// user namespace of its own (mapping this process's effective uid and gid
// to themselves) with a PID namespace and a /proc of its own, without
// privilege: the way an unprivileged run gets isolated. The error names
// the step the kernel refused (distributions can forbid unprivileged user
// namespaces: kernel.unprivileged_userns_clone=0, AppArmor's
// kernel.apparmor_restrict_unprivileged_userns=1, user.max_user_namespaces=0).
var ProbeUserNamespace = sync.OnceValue(func() error {
	var ret C.int
	syscall.ForkLock.Lock()
	ret = C.sysgate_probe_userns(C.uint32_t(os.Geteuid()), C.uint32_t(os.Getegid()))
	syscall.ForkLock.Unlock()
	if ret < 0 {
		return os.NewSyscallError("user namespace with a PID namespace and its own /proc", syscall.Errno(-ret))
	}
	return nil
})
