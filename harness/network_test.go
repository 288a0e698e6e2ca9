package harness

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/touch"
	"github.com/sysgate/sysgate/baseline"
)

func netEvent(syscall string, exit int64, sa *touch.Sockaddr, args ...uint64) touch.Event {
	ev := touch.Event{Syscall: syscall, Exit: exit, Addr: sa, PID: 41, Exe: "/usr/bin/python3", CWD: "/w"}
	if exit < 0 {
		ev.Failed, ev.Errno, ev.Exit = true, int(-exit), -1
	}
	copy(ev.Args[:], args)
	return ev
}

func inet(addr string, port uint16) *touch.Sockaddr {
	return &touch.Sockaddr{Family: "inet", Addr: netip.MustParseAddr(addr), Port: port}
}

// The audit emitter turns SOCKADDR records into destinations: every
// outcome but a refusal reached out, a listen takes its socket's bind,
// netlink is the kernel's, a family sysgate cannot gate and a sendmmsg
// of several addressed messages make the run unable to vouch.
func TestNetEmitter(t *testing.T) {
	b := newNetBook(true, nil)
	e := newNetEmitter(b)
	e.emit(netEvent("connect", -115, inet("127.0.0.2", 9), 3))  // EINPROGRESS: on its way
	e.emit(netEvent("connect", -111, inet("127.0.0.2", 10), 3)) // ECONNREFUSED: the SYN left
	e.emit(netEvent("connect", -13, inet("127.0.0.3", 9), 3))   // EACCES: refused
	e.emit(netEvent("connect", -22, inet("127.0.0.4", 9), 3))   // EINVAL: nothing left
	e.emit(netEvent("connect", -2, &touch.Sockaddr{Family: "unix", Path: "/var/run/nscd/socket"}, 3))
	e.emit(netEvent("bind", -98, inet("127.0.0.1", 8081), 5)) // EADDRINUSE
	e.emit(netEvent("bind", 0, inet("127.0.0.1", 8080), 5))
	e.emit(netEvent("listen", 0, nil, 5))
	e.emit(netEvent("listen", 0, nil, 6)) // never bound here: the widest
	e.emit(netEvent("sendto", 10, nil, 7))
	e.emit(netEvent("connect", 0, nil, 9)) // worked, and no address recorded
	e.emit(netEvent("sendto", 10, &touch.Sockaddr{Family: "netlink"}, 7))
	e.emit(netEvent("sendto", 10, inet("127.0.0.9", 53), 7))
	e.emit(netEvent("connect", 0, &touch.Sockaddr{Family: "unix", Path: "s.sock"}, 8))
	e.emit(netEvent("connect", 0, &touch.Sockaddr{Family: "unix", Path: "@abs"}, 8))
	e.emit(netEvent("connect", 0, &touch.Sockaddr{Family: "vsock"}, 8))
	e.emit(netEvent("sendmmsg", 2, inet("127.0.0.1", 53), 7, 0, 2))
	e.emit(netEvent("socketcall", 0, inet("10.0.0.1", 443), 3))
	ts, _ := b.touches()
	var got []string
	for _, x := range ts {
		s := x.Op.String() + " " + x.Dest
		if x.Denied {
			s += " denied"
		}
		got = append(got, s)
	}
	want := []string{
		"connect 10.0.0.1:443", "connect 127.0.0.2:10", "connect 127.0.0.2:9", "connect 127.0.0.3:9 denied",
		"connect unix:/w/s.sock", "connect unix:@abs",
		"bind 127.0.0.1:8080", "listen 0.0.0.0:0", "listen 127.0.0.1:8080",
		"send 127.0.0.1:53", "send 127.0.0.9:53",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("destinations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	un := b.unverifiedReasons()
	if len(un) != 3 || !strings.Contains(strings.Join(un, "\n"), "vsock") || !strings.Contains(strings.Join(un, "\n"), "sendmmsg") || !strings.Contains(strings.Join(un, "\n"), "missing") {
		t.Errorf("unverified: %q, want the vsock connect, the sendmmsg and the connect without its address", un)
	}
}

// A gated book keeps only what the matcher refuses; the run's own
// forwarder is neither learnt nor gated; names come from the namer.
func TestNetBookGates(t *testing.T) {
	doc := "version: 1\nagent: t\nnetwork:\n  connect:\n    - 127.0.0.1:{port}\n    - api.example.com:443\nsyscalls:\n  x86_64: [read]\n"
	p, err := baseline.LoadStackFrom(func(string) ([]byte, error) { return []byte(doc), nil }, nil, "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := p.NetworkMatcher(baseline.FileContext{Workspace: "/w"})
	b := newNetBook(false, m)
	fwd := netip.MustParseAddrPort("127.53.0.1:53")
	b.own = func(d baseline.Destination) bool { return d.Addr == fwd.Addr() && d.Port == fwd.Port() }
	b.name = func(a netip.Addr) string {
		if a == netip.MustParseAddr("192.0.2.7") {
			return "api.example.com"
		}
		return ""
	}
	for _, a := range []netAccess{
		{Op: baseline.NetConnect, Dest: baseline.Destination{Addr: netip.MustParseAddr("127.0.0.1"), Port: 4000}},
		{Op: baseline.NetConnect, Dest: baseline.Destination{Addr: netip.MustParseAddr("192.0.2.7"), Port: 443}},
		{Op: baseline.NetSend, Dest: baseline.Destination{Addr: fwd.Addr(), Port: 53}},
		{Op: baseline.NetConnect, Dest: baseline.Destination{Addr: netip.MustParseAddr("127.0.0.2"), Port: 4000}},
		{Op: baseline.NetConnect, Dest: baseline.Destination{Addr: netip.MustParseAddr("192.0.2.7"), Port: 22}},
	} {
		a.Exe = "/usr/bin/python3"
		b.add(a)
	}
	ts, _ := b.touches()
	var got []string
	for _, x := range ts {
		got = append(got, x.Dest)
	}
	if strings.Join(got, ",") != "127.0.0.2:4000,api.example.com:22" {
		t.Errorf("kept %v, want the second loopback address and the named host's other port", got)
	}
	if b.allowed != 2 {
		t.Errorf("allowed %d, want 2 (the forwarder is neither)", b.allowed)
	}
}

// A connect or send to 0.0.0.0 or :: reaches this host: the socket's
// bound address (seen bound on that descriptor) or 127.0.0.1 (::1).
// Both are kept where the run saw a bind (the descriptor may have been
// reused since); where it saw none, the unspecified address stays.
func TestNetEmitterUnspecified(t *testing.T) {
	b := newNetBook(true, nil)
	e := newNetEmitter(b)
	e.emit(netEvent("bind", 0, inet("127.0.0.2", 0), 10))
	e.emit(netEvent("connect", 0, inet("0.0.0.0", 4000), 10))
	e.emit(netEvent("connect", 0, inet("0.0.0.0", 4001), 11)) // never bound here
	e.emit(netEvent("bind", 0, &touch.Sockaddr{Family: "inet6", Addr: netip.MustParseAddr("127.0.0.2")}, 12))
	e.emit(netEvent("sendto", 1, &touch.Sockaddr{Family: "inet6", Addr: netip.IPv6Unspecified(), Port: 4002}, 12))
	ts, _ := b.touches()
	var got []string
	for _, x := range ts {
		got = append(got, x.Op.String()+" "+x.Dest)
	}
	want := []string{
		"connect 0.0.0.0:4001", "connect 127.0.0.1:4000", "connect 127.0.0.2:4000",
		"bind 127.0.0.2:0", "send 127.0.0.1:4002", "send [::1]:4002",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("destinations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
