package harness

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/notify/fileproxy"
	"github.com/sysgate/sysgate/observe"
)

// notifyFiles is the notify backend's file observer: the filter hands
// every file call to the listener (compile.Options.ProxiedCalls), and the
// proxy performs it for the caller on the path it read once, so what
// the book records is the file the call reached, never a path a second
// thread could change between a read and the kernel's own (see
// notify/fileproxy).
type notifyFiles struct {
	proxy *fileproxy.Proxy
	book  *fileBook
	calls map[string]bool
	// refuse: enforce's gate, true for an access outside the files
	// section (the proxy then fails the call with EACCES); nil in check
	// and record, which let everything run and report it.
	refuse func(path string, op baseline.FileOp) bool
	mu     sync.Mutex
	err    error
}

func (p *runPlan) newNotifyFiles() (*notifyFiles, error) {
	proxy, err := fileproxy.New()
	if err != nil {
		return nil, fmt.Errorf("observe files: %w", err)
	}
	f := &notifyFiles{proxy: proxy, book: p.newFileBook(), calls: map[string]bool{}}
	for _, name := range fileproxy.Syscalls(scmp.Native()) {
		f.calls[name] = true
	}
	if p.mode == baseline.ModeEnforce && f.book.outside != nil {
		f.refuse = f.book.outside
	}
	return f, nil
}

func (f *notifyFiles) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *notifyFiles) close() error {
	f.proxy.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return fmt.Errorf("the notify backend's file proxy: %w", f.err)
	}
	return nil
}

// serveFile answers a file call through the proxy. handled=false: not a
// file call it serves; the notifier answers it as any other. A call the
// profile does not allow (its syscall or class) is the event the filter
// would have reported, and enforce refuses it before anything runs.
func (n *notifier) serveFile(notif *kernel.SeccompNotif, arch scmp.Arch, name string, ev *observe.Syscall, id kernel.TaskIdent) (listener.Answer, bool) {
	f := n.files
	if f == nil || arch != scmp.Native() || !f.calls[name] {
		return listener.Continue, false
	}
	if n.mode == baseline.ModeRecord || !n.profile.Allows(arch, ev.Name) {
		n.events.add(ev)
		if n.mode == baseline.ModeEnforce {
			return listener.Fail(unix.EPERM), true
		}
	}
	handled, accesses, err := f.proxy.Serve(notif, n.fd, func(a fileproxy.Access) bool {
		return f.refuse == nil || a.Path == "" || !f.refuse(ownProcOf(a.Path, id.PID), notifyOp(a.Op))
	})
	for _, a := range accesses {
		if a.Denied && f.refuse == nil {
			// Refused by the proxy's own guards (another process's
			// ptrace-guarded /proc files, sysgate's own, the file-handle
			// calls), as the kernel refuses the caller: nothing happened,
			// and the audit backend, which sees only calls that succeed,
			// would not see it either.
			continue
		}
		if a.Racy || a.Path == "" {
			// An O_PATH open reads and writes nothing (a reopen through
			// it is served by the file it names); a handle call names no
			// path and was refused.
			if a.Path == "" && a.Denied {
				f.book.add(fileAccess{Path: "(" + a.Syscall + ")", Op: notifyOp(a.Op), Syscall: a.Syscall, PID: id.PID, Exe: id.Exe, Denied: true})
			}
			continue
		}
		f.book.add(fileAccess{Path: ownProcOf(a.Path, id.PID), Op: notifyOp(a.Op), Syscall: a.Syscall, PID: id.PID, Exe: id.Exe, Denied: a.Denied})
	}
	if err != nil {
		f.setErr(err)
	}
	if !handled {
		return listener.Continue, true
	}
	return listener.Answered, true
}

// exec records the files an exec the listener lets run opens for
// execution (execSeen.opens: the program, its "#!" interpreters, ld.so),
// which the kernel opens itself and the proxy never serves. The audit
// backend reads them from the exec's PATH records: without them here, a
// baseline recorded on notify would lack what a check on audit sees
// (issue 42, item 7). A memory file ("memfd:NAME") has no path to list:
// the programs gate names it.
func (f *notifyFiles) exec(e *execSeen, syscall string) {
	for _, p := range e.opens {
		if !strings.HasPrefix(p, "/") {
			continue
		}
		f.book.add(fileAccess{Path: ownProcOf(p, e.tgid), Op: baseline.FileExec, Syscall: syscall, PID: e.tgid, Exe: e.program})
	}
}

func notifyOp(op fileproxy.Op) baseline.FileOp {
	switch op {
	case fileproxy.OpWrite:
		return baseline.FileWrite
	case fileproxy.OpExec:
		return baseline.FileExec
	case fileproxy.OpDelete:
		return baseline.FileDelete
	}
	return baseline.FileRead
}
