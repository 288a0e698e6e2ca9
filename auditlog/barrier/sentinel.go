package barrier

import (
	"runtime"
	"sync"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The sentinel is a throwaway OS thread of this process: it names itself
// "sgb<stream>.<gen>", installs a seccomp filter on itself only that logs
// getppid(markerArg) and allows everything else, makes that call and
// exits. Records are queued in order, so once its record arrives every
// record emitted before the sentinel fired has arrived too. The name tells
// which sentinel fired.
const (
	markerPrefix = "sgb"
	markerArg    = 0x5379_7347 // "SysG"; getppid ignores its arguments
)

var sentinelFilter = sync.OnceValue(func() Filter {
	return LogOneSyscall(scmp.Native().AuditArch(), kernel.GetppidNr, true, markerArg)
})

// fireSentinel runs on a goroutine that locks its thread and never
// unlocks it: the runtime then ends the thread, and its filter with it.
func fireSentinel(name string, fire bool, errc chan<- error) {
	runtime.LockOSThread()
	if kernel.OnMainThread() {
		// The runtime parks the main thread forever instead of ending
		// it, and its name is the process's. While the main thread is
		// locked to this goroutine a new goroutine must run elsewhere.
		moved := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(moved)
			fireOnThisThread(name, fire, errc)
		}()
		<-moved
		runtime.UnlockOSThread()
		return
	}
	fireOnThisThread(name, fire, errc)
}

// fireOnThisThread runs on a locked thread that is not the main thread
// and returns without unlocking it. Root could load the filter without
// no_new_privs (it has CAP_SYS_ADMIN), but the flag costs nothing on a
// thread about to die and lets a process without CAP_SYS_ADMIN do it.
func fireOnThisThread(name string, fire bool, errc chan<- error) {
	if err := kernel.SetThreadName(name); err != nil {
		errc <- err
		return
	}
	if err := kernel.SetNoNewPrivs(); err != nil {
		errc <- err
		return
	}
	if err := kernel.LoadSeccompFilter(sentinelFilter(), 0); err != nil {
		errc <- err
		return
	}
	if fire {
		kernel.Getppid(markerArg)
	}
	errc <- nil
}
