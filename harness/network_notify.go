package harness

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/notify/netproxy"
	"github.com/sysgate/sysgate/observe"
)

// notifyNet is the notify backend's network observer: the filter hands
// every socket call with an address to the listener
// (compile.Options.ProxiedCalls), and the proxy performs it for the
// caller with the address it read once, so what the book records is
// where the call went, never an address a second thread could change
// after the read (see notify/netproxy).
type notifyNet struct {
	proxy *netproxy.Proxy
	book  *netBook
	calls map[string]bool
	// refuse: enforce's gate (the proxy then fails the call with EACCES);
	// false in check and record, which let everything run and report it.
	refuse bool
	mu     sync.Mutex
	err    error
}

func (p *runPlan) newNotifyNet() (*notifyNet, error) {
	proxy, err := netproxy.New()
	if err != nil {
		return nil, fmt.Errorf("observe the network: %w", err)
	}
	n := &notifyNet{proxy: proxy, book: p.newNetBook(), calls: map[string]bool{}}
	for _, name := range netproxy.Syscalls(scmp.Native()) {
		n.calls[name] = true
	}
	n.refuse = p.mode == baseline.ModeEnforce && n.book.matcher != nil
	return n, nil
}

func (f *notifyNet) close() error {
	err := f.proxy.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
	if f.err != nil {
		return fmt.Errorf("the notify backend's network proxy: %w", f.err)
	}
	return nil
}

// netOpOf names the proxy's call in the baselines' terms.
func netOpOf(op string) baseline.NetOp {
	switch op {
	case "connect":
		return baseline.NetConnect
	case "bind":
		return baseline.NetBind
	case "listen":
		return baseline.NetListen
	}
	return baseline.NetSend
}

// destOf is the proxy's destination in the baselines' terms; ok=false
// for a family sysgate does not gate (the proxy refuses those).
func destOf(d netproxy.Dest) (baseline.Destination, bool) {
	switch d.Family {
	case "inet", "inet6":
		return baseline.Destination{Addr: d.Addr.Unmap(), Port: d.Port}, true
	case "unix":
		if d.Abstract {
			return baseline.Destination{Unix: "@" + d.Unix}, true
		}
		return baseline.Destination{Unix: d.Unix}, d.Unix != ""
	}
	return baseline.Destination{}, false
}

// serveNet answers a socket call through the proxy, as serveFile does a
// file call.
func (n *notifier) serveNet(notif *kernel.SeccompNotif, arch scmp.Arch, name string, ev *observe.Syscall, id kernel.TaskIdent) (listener.Answer, bool) {
	f := n.net
	if f == nil || arch != scmp.Native() || !f.calls[name] {
		return listener.Continue, false
	}
	if n.mode == baseline.ModeRecord || !n.profile.Allows(arch, ev.Name) {
		n.events.add(ev)
		if n.mode == baseline.ModeEnforce {
			return listener.Fail(unix.EPERM), true
		}
	}
	exe := netExe(id)
	handled, accesses, err := f.proxy.Serve(notif, n.fd, func(a netproxy.Access) bool {
		if !f.refuse {
			return true
		}
		d, ok := destOf(a.Dest)
		if !ok {
			// Netlink (the kernel's own) and AF_UNSPEC (a disconnect)
			// leave nothing; other families are not gated, so refused.
			return kernelLocal(a.Dest.Family)
		}
		d = f.book.named(d)
		return (f.book.own != nil && f.book.own(d)) || !f.book.outside(netOpOf(a.Op), d, exe)
	})
	for _, a := range accesses {
		d, ok := destOf(a.Dest)
		if !ok {
			if !kernelLocal(a.Dest.Family) {
				f.book.unverify(fmt.Sprintf("%s by %s (pid %d) to a %s address: sysgate gates IP and Unix destinations only", a.Syscall, exe, id.PID, a.Dest.Family))
			}
			continue
		}
		f.book.add(netAccess{Op: netOpOf(a.Op), Dest: d, Syscall: a.Syscall, PID: id.PID, Exe: exe, Denied: a.Denied})
	}
	if err != nil {
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.mu.Unlock()
	}
	if !handled {
		return listener.Continue, true
	}
	return listener.Answered, true
}

// kernelLocal reports an address family whose calls leave nothing:
// netlink talks to the kernel (glibc's getaddrinfo asks it for the
// machine's addresses), AF_UNSPEC disconnects a datagram socket.
func kernelLocal(family string) bool {
	return family == afNetlink || family == afUnspec || family == ""
}

// The proxy's names of the families kernelLocal lets through
// (netproxy.Dest.Family: "af<N>").
var (
	afNetlink = fmt.Sprintf("af%d", unix.AF_NETLINK)
	afUnspec  = fmt.Sprintf("af%d", unix.AF_UNSPEC)
)
