package harness

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/touch"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/notify/netproxy"
	"github.com/sysgate/sysgate/verdict"
)

// planNetwork decides whether the run observes the network: on the
// audit backend by audit rules for the socket calls, scoped to the run's
// login uid as the files rules are (the kernel's SOCKADDR record is its
// own copy of the address); on notify by the proxy, which performs each
// call with the address it read once (notify/netproxy).
func (p *runPlan) planNetwork() {
	cfg := p.cfg
	switch {
	case cfg.noNetwork:
		p.weakened = append(p.weakened, "network not observed (--no-network): where the agent connected and what it looked up were neither listed nor gated")
		return
	case p.mode != baseline.ModeRecord && !p.profile.NetworkGated():
		p.weakened = append(p.weakened, "the baselines have no network section [net-blind]: where the agent connected is listed, not gated (record with --merge to add one)")
	}
	p.network = true
	if !p.notify && p.auid == 0 {
		p.auid = touch.NewAUID()
		p.setup.LoginUID = p.auid
	}
}

// touchSet is what the run's audit rules record.
func (p *runPlan) touchSet() touch.Set {
	var set touch.Set
	if p.files {
		set |= touch.Files
	}
	if p.network {
		set |= touch.Network
	}
	return set
}

// newNetBook is the run's book of socket calls: gated by the baselines'
// network section in check and enforce, learning everything in record.
func (p *runPlan) newNetBook() *netBook {
	var b *netBook
	if p.mode == baseline.ModeRecord || !p.profile.NetworkGated() {
		b = newNetBook(true, nil)
	} else {
		b = newNetBook(false, p.profile.NetworkMatcher(fileContext(p.agent, p.envBefore)))
	}
	if r := p.resolver; r != nil {
		b.name, b.own = r.nameFor, r.own
	}
	return b
}

// netEmitter turns the run's audit events of socket calls into
// destinations for its book. The address is the SOCKADDR record: the
// kernel's copy, made once, of what the call used.
type netEmitter struct {
	book *netBook
	// bound are the addresses the run's processes bound, by process and
	// descriptor: a listen says only which socket.
	bound map[sockRef]baseline.Destination
}

type sockRef struct {
	pid int
	fd  uint64
}

func newNetEmitter(book *netBook) *netEmitter {
	return &netEmitter{book: book, bound: map[sockRef]baseline.Destination{}}
}

// isNetCall reports a call the network rules record (socketcall: the
// 32-bit multiplexer, whose first argument says which call).
func isNetCall(name string) bool {
	switch name {
	case "connect", "bind", "listen", "sendto", "sendmsg", "sendmmsg", "socketcall":
		return true
	}
	return false
}

// socketcall numbers (linux/net.h).
var socketcalls = map[uint64]string{2: "bind", 3: "connect", 4: "listen", 11: "sendto", 16: "sendmsg", 20: "sendmmsg"}

func (e *netEmitter) emit(ev touch.Event) {
	name := ev.Syscall
	fd, vlen, fdKnown := ev.Args[0], ev.Args[2], true
	if name == "socketcall" {
		// The arguments are behind a1: only the address (SOCKADDR) is
		// the kernel's. Neither descriptor nor message count is known.
		name, vlen, fdKnown = socketcalls[ev.Args[0]], 2, false
		if name == "" {
			return
		}
	}
	a := netAccess{Syscall: ev.Syscall, PID: ev.PID, Exe: ev.Exe}
	// EACCES and EPERM: refused (enforce's Landlock domain, an LSM).
	a.Denied = ev.Failed && (ev.Errno == int(unix.EACCES) || ev.Errno == int(unix.EPERM))
	if ev.Failed && !a.Denied && !mayHaveLeft(name, ev) {
		return
	}
	if name == "listen" {
		a.Op = baseline.NetListen
		d, ok := e.bound[sockRef{ev.PID, fd}]
		if !ok || !fdKnown {
			// Bound where this run did not see it (by another process,
			// or never: listen binds an unbound socket to every address
			// on a port the kernel picks). The widest is assumed.
			d = baseline.Destination{Addr: netip.IPv4Unspecified()}
		}
		a.Dest = d
		e.book.add(a)
		return
	}
	if ev.Addr == nil {
		if (name == "connect" || name == "bind") && !ev.Failed {
			// The kernel copies every address it takes: a connect or
			// bind that worked without a record of one is a record
			// missing, not a call without a destination.
			e.book.unverify(fmt.Sprintf("%s by %s (pid %d) worked, and the kernel's record of its address is missing", ev.Syscall, ev.Exe, ev.PID))
		}
		// Otherwise a send to the connected peer (decided at connect).
		return
	}
	d, ok, why := destinationOf(ev)
	if why != "" {
		e.book.unverify(why)
		return
	}
	if !ok {
		return
	}
	a.Dest = d
	switch name {
	case "connect":
		a.Op = baseline.NetConnect
	case "bind":
		a.Op = baseline.NetBind
		if !a.Denied && fdKnown && ev.Exit == 0 && len(e.bound) < verdict.MaxLearnedNetwork {
			e.bound[sockRef{ev.PID, fd}] = d
		}
	case "sendmmsg":
		if vlen > 1 {
			// The kernel keeps one address per call: the others of a
			// sendmmsg that named several are not recorded.
			e.book.unverify(fmt.Sprintf("%s by %s (pid %d) sent %d messages with addresses of their own; the kernel records one", ev.Syscall, ev.Exe, ev.PID, vlen))
		}
		a.Op = baseline.NetSend
	default:
		a.Op = baseline.NetSend
	}
	if a.Op != baseline.NetBind && d.Addr.IsUnspecified() {
		e.addUsed(a, ev.Addr.Addr, sockRef{ev.PID, fd}, fdKnown)
		return
	}
	e.book.add(a)
}

// addUsed adds a connect or send to an unspecified address (0.0.0.0,
// ::) as the local address the kernel reached (netproxy.UsedAddr): the
// socket's bound one, which this run saw bound on that descriptor, or
// 127.0.0.1 (::1) if unbound. The descriptor may have been closed and
// reused for an unbound socket since (close is not recorded), so both
// are added. A socket whose bind this run did not see (bound by another
// process, or through socketcall) may be bound to any local address:
// it stays the unspecified one, which only a literal 0.0.0.0:port or
// [::]:port entry allows.
func (e *netEmitter) addUsed(a netAccess, dst netip.Addr, ref sockRef, fdKnown bool) {
	b, ok := e.bound[ref]
	if !ok || !fdKnown || !b.Addr.IsValid() {
		e.book.add(a)
		return
	}
	// Bound addresses are kept as IPv4 for a v4-mapped one: the mapped
	// form is what UsedAddr tells apart for ::.
	bound := netip.AddrFrom16(b.Addr.As16())
	for _, used := range []netip.Addr{netproxy.UsedAddr(dst, bound), netproxy.UsedAddr(dst, netip.Addr{})} {
		a.Dest.Addr = used
		e.book.add(a)
	}
}

// mayHaveLeft reports whether a failed call may still have reached its
// destination: an IP connect or send that failed on the way
// (EINPROGRESS is how a non-blocking connect starts, ECONNREFUSED had
// its SYN sent, a timeout its retries), not one the kernel refused
// before anything left (a bad argument, a socket in the wrong state). A
// failed bind or listen bound nothing, and a failed Unix call reached no
// socket.
func mayHaveLeft(name string, ev touch.Event) bool {
	if name == "bind" || name == "listen" || ev.Addr == nil || (ev.Addr.Family != "inet" && ev.Addr.Family != "inet6") {
		return false
	}
	switch unix.Errno(ev.Errno) {
	case unix.EINVAL, unix.EBADF, unix.ENOTSOCK, unix.EFAULT, unix.EAFNOSUPPORT, unix.EISCONN, unix.EALREADY, unix.EADDRNOTAVAIL, unix.EPROTOTYPE, unix.EOPNOTSUPP:
		return false
	}
	return true
}

// destinationOf reads an event's SOCKADDR as a destination. ok=false: a
// family that leaves nothing (netlink talks to the kernel, AF_UNSPEC
// disconnects); why: one sysgate cannot gate.
func destinationOf(ev touch.Event) (d baseline.Destination, ok bool, why string) {
	sa := ev.Addr
	switch sa.Family {
	case "inet", "inet6":
		if !sa.Addr.IsValid() {
			return d, false, fmt.Sprintf("%s by %s (pid %d): an address the kernel recorded unreadably", ev.Syscall, ev.Exe, ev.PID)
		}
		return baseline.Destination{Addr: sa.Addr.Unmap(), Port: sa.Port}, true, ""
	case "unix", "local":
		p := sa.Path
		if p == "" {
			return d, false, ""
		}
		if !strings.HasPrefix(p, "@") && !filepath.IsAbs(p) {
			if ev.CWD == "" {
				return d, false, fmt.Sprintf("%s by %s (pid %d) to the Unix socket %q, relative to a directory the kernel did not record", ev.Syscall, ev.Exe, ev.PID, p)
			}
			p = filepath.Join(ev.CWD, p)
		}
		if strings.HasPrefix(p, "@") {
			return baseline.Destination{Unix: p}, true, ""
		}
		p = filepath.Clean(p)
		// The socket the kernel reached, through any symlink: the name
		// is the caller's, the inode the kernel's.
		for _, root := range []string{touch.RootOf(ev.PID), "/"} {
			real, found, ok := ev.SocketPath(root)
			if !found {
				break
			}
			if ok {
				return baseline.Destination{Unix: real}, true, ""
			}
			if root == "/" {
				return d, false, fmt.Sprintf("%s by %s (pid %d) to the Unix socket %q, which no longer leads to the socket the kernel reached", ev.Syscall, ev.Exe, ev.PID, p)
			}
		}
		return baseline.Destination{Unix: p}, true, ""
	case "netlink", "unspec", "":
		return d, false, ""
	}
	return d, false, fmt.Sprintf("%s by %s (pid %d) to a %s address: sysgate gates IP and Unix destinations only", ev.Syscall, ev.Exe, ev.PID, sa.Family)
}

// addNetwork fills the network part of a result from the run's book and
// its forwarder: where the calls went into the observation (by name
// where a lookup gave one), the calls outside the baselines, what was
// looked up.
func addNetwork(r *verdict.Result, b *netBook, p *runPlan) {
	r.NetworkObserved = true
	if res := p.resolver; res != nil {
		queries := res.fwd.Queries() // a copy: taken once
		res.addLookups(b, queries)
		r.Names = res.names(queries)
		for _, t := range res.tunnelling(queries, b.matcher) {
			switch {
			case b.matcher != nil:
				r.NetworkViolations = append(r.NetworkViolations, verdict.NetworkViolation{
					NetworkTouch: verdict.NetworkTouch{Op: baseline.NetResolve, Dest: t, Syscall: "dns", Risk: risk.DNSTunnel, Level: risk.High},
					Has:          fmt.Sprintf("more than %d distinct names under one domain in one run: data leaves in the names themselves", tunnelNames)})
			case p.mode == baseline.ModeRecord:
				b.unverify("names looked up in a pattern of DNS tunnelling (" + t + "): a record run does not learn them")
			default:
				r.Warnings = append(r.Warnings, "names looked up in a pattern of DNS tunnelling: "+t)
			}
		}
	} else {
		r.NamesUnrecorded = p.resolverNote
	}
	if r.Observed.Network == nil {
		r.Observed.Network = map[string]map[string]map[string]uint64{}
	}
	ts, ds := b.touches()
	// The entry goes into the run's own baseline (the last named).
	var file string
	if len(p.cfg.baselines) > 0 {
		file = p.cfg.baselines[len(p.cfg.baselines)-1]
	} else if files := p.profile.Files(); len(files) > 0 {
		file = files[0]
	}
	scripts := map[int]string{}
	for _, pr := range r.Programs {
		if pr.Role == verdict.RoleScript {
			scripts[pr.PID] = pr.Path
		}
	}
	for i, t := range ts {
		d := ds[i]
		t.Script = scripts[t.PID]
		if !t.Denied {
			// A Unix socket's path by placeholder, as files are kept.
			kept := d
			if kept.Unix != "" && !strings.HasPrefix(kept.Unix, "@") {
				kept.Unix = p.fileCtxOrNew().Abstract(kept.Unix)
			}
			r.Observed.AddNetwork(t.Op, kept, t.Program, t.Count)
		}
		if b.matcher == nil {
			continue
		}
		if entries := baseline.GeneraliseNetwork(p.fileCtxOrNew(), []baseline.ObservedDestination{{Op: t.Op, Dest: d, Program: t.Program, Count: t.Count}}); len(entries) > 0 {
			if c, l, _ := baseline.NetworkRisk(entries[0]); c != "" {
				t.Risk, t.Level = c, l
			}
		}
		r.NetworkViolations = append(r.NetworkViolations, verdict.NetworkViolation{NetworkTouch: t, Has: b.matcher.Explain(t.Op, d, t.Program), File: file})
	}
	r.UnverifiedNetwork = append(r.UnverifiedNetwork, b.unverifiedReasons()...)
	b.mu.Lock()
	notKept := b.notKept
	b.mu.Unlock()
	if b.learn {
		r.AddNotKept(verdict.NotKept{LearnedNetwork: notKept})
	} else {
		r.AddNotKept(verdict.NotKept{NetworkViolations: notKept})
	}
}

// fileCtxOrNew is the run's placeholder values.
func (p *runPlan) fileCtxOrNew() baseline.FileContext {
	if p.fileCtx.Workspace == "" {
		p.fileCtx = fileContext(p.agent, p.envBefore)
	}
	return p.fileCtx
}

// netExe names a notify caller's executable as audit does.
func netExe(id kernel.TaskIdent) string { return kernel.ProgramPath(id.Exe) }
