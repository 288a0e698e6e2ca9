package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// echoServer accepts on ln until it closes and echoes the first read of
// each connection; it counts the connections it accepted.
func echoServer(t testing.TB, ln net.Listener) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 16)
				if k, err := c.Read(buf); err == nil {
					c.Write(buf[:k])
				}
			}()
		}
	}()
	return &n
}

func tcpEcho(t testing.TB, addr string) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), echoServer(t, ln)
}

// silentSocket is a bound socket of typ on addr that nobody reads or
// accepts on (listening if a stream): whatever reached it is still
// queued when the test asks (queued reports it without waiting).
func silentSocket(t *testing.T, typ int, addr string) (string, func() bool) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, inet(addr)); err != nil {
		t.Fatal(err)
	}
	if typ == unix.SOCK_STREAM {
		if err := unix.Listen(fd, 4096); err != nil {
			t.Fatal(err)
		}
	}
	sa, _ := unix.Getsockname(fd)
	a := sa.(*unix.SockaddrInet4)
	bound := netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
	return bound, func() bool {
		if typ == unix.SOCK_STREAM {
			nfd, _, err := unix.Accept4(fd, unix.SOCK_CLOEXEC)
			if err == nil {
				unix.Close(nfd)
			}
			return err == nil
		}
		_, _, err := unix.Recvfrom(fd, make([]byte, 16), unix.MSG_DONTWAIT)
		return err == nil
	}
}

func allowAll(Access) bool { return true }

// denyHost refuses every destination on addr.
func denyHost(addr string) func(Access) bool {
	a := netip.MustParseAddr(addr)
	return func(acc Access) bool { return acc.Dest.Addr != a }
}

func inetDest(s string) Dest {
	ap := netip.MustParseAddrPort(s)
	return Dest{Family: "inet", Addr: ap.Addr(), Port: ap.Port()}
}

func has(accesses []Access, want Access) bool {
	for _, a := range accesses {
		if a == want {
			return true
		}
	}
	return false
}

func TestConnectAllowedCarriesData(t *testing.T) {
	addr, accepted := tcpEcho(t, "127.0.0.1:0")
	r := runChild(t, nil, allowAll, "tcp,"+addr)
	if r.lines[0] != "ok:ping" {
		t.Fatalf("child: %q", r.lines[0])
	}
	if accepted.Load() != 1 {
		t.Errorf("listener accepted %d connections, want 1", accepted.Load())
	}
	want := Access{Op: "connect", Dest: inetDest(addr), Syscall: "connect"}
	if !has(r.accesses, want) {
		t.Errorf("accesses %+v lack %+v", r.accesses, want)
	}
}

// TestConnectDeniedNeverReachesListener: a refused connect fails with
// EACCES (what Landlock and an LSM give for a denied connect, and
// distinct from a peer's ECONNREFUSED) and no handshake happens.
func TestConnectDeniedNeverReachesListener(t *testing.T) {
	addr, reached := silentSocket(t, unix.SOCK_STREAM, "127.0.0.2:0")
	r := runChild(t, nil, denyHost("127.0.0.2"), "tcp,"+addr)
	if r.lines[0] != "err:EACCES" {
		t.Fatalf("child: %q, want err:EACCES", r.lines[0])
	}
	if reached() {
		t.Error("the denied listener has a connection")
	}
	want := Access{Op: "connect", Dest: inetDest(addr), Syscall: "connect", Denied: true}
	if !has(r.accesses, want) {
		t.Errorf("accesses %+v lack %+v", r.accesses, want)
	}
}

func TestUDPSendtoWithoutConnect(t *testing.T) {
	okAddr, okGot := silentSocket(t, unix.SOCK_DGRAM, "127.0.0.1:0")
	badAddr, badGot := silentSocket(t, unix.SOCK_DGRAM, "127.0.0.2:0")
	r := runChild(t, nil, denyHost("127.0.0.2"), "udp,"+okAddr, "udp,"+badAddr)
	if r.lines[0] != "ok:" || r.lines[1] != "err:EACCES" {
		t.Fatalf("child: %q, want ok: and err:EACCES", r.lines)
	}
	if !okGot() {
		t.Error("the allowed address received nothing")
	}
	if badGot() {
		t.Error("the denied address received a datagram")
	}
	for _, want := range []Access{
		{Op: "send", Dest: inetDest(okAddr), Syscall: "sendto"},
		{Op: "send", Dest: inetDest(badAddr), Syscall: "sendto", Denied: true},
	} {
		if !has(r.accesses, want) {
			t.Errorf("accesses %+v lack %+v", r.accesses, want)
		}
	}
}

func TestNonblockingConnectReturnsEINPROGRESS(t *testing.T) {
	addr, _ := tcpEcho(t, "127.0.0.1:0")
	r := runChild(t, nil, allowAll, "nonblock,"+addr)
	// Loopback may complete at once; the kernel then still says
	// EINPROGRESS for a non-blocking TCP connect, and so must the proxy.
	if r.lines[0] != "ok:inprogress ok:ping" {
		t.Fatalf("child: %q", r.lines[0])
	}
}

func TestListenReportsTheBoundAddress(t *testing.T) {
	r := runChild(t, nil, allowAll, "listen,127.0.0.1:0")
	if r.lines[0] != "ok:" {
		t.Fatalf("child: %q", r.lines[0])
	}
	var found bool
	for _, a := range r.accesses {
		if a.Op == "listen" {
			found = a.Dest.Addr == netip.MustParseAddr("127.0.0.1") && a.Dest.Port != 0
		}
	}
	if !found {
		t.Errorf("no listen on 127.0.0.1 with its port in %+v", r.accesses)
	}
}

// TestUnixPathRelativeToTheCallersCwd: the name is looked up from the
// caller's cwd, not the supervisor's, and reported absolute.
func TestUnixPathRelativeToTheCallersCwd(t *testing.T) {
	dir := worldDir(t)
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, ln)
	if wd, _ := os.Getwd(); wd == dir {
		t.Fatal("the test runs in the socket's directory: it proves nothing")
	}
	r := runChild(t, nil, allowAll, "chdir,"+dir, "unix,s.sock")
	if r.lines[1] != "ok:ping" {
		t.Fatalf("child: %q", r.lines)
	}
	want := Access{Op: "connect", Dest: Dest{Family: "unix", Unix: sock}, Syscall: "connect"}
	if !has(r.accesses, want) {
		t.Errorf("accesses %+v lack %+v", r.accesses, want)
	}
}

// TestUnprivilegedCallerGainsNothing: a root supervisor acts with the
// caller's credentials, so what the kernel refuses the caller it
// refuses the proxy: a port below ip_unprivileged_port_start (checked
// against the acting task's CAP_NET_BIND_SERVICE) and a socket in a
// directory the caller may not search.
func TestUnprivilegedCallerGainsNothing(t *testing.T) {
	testutil.RequireRoot(t)
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start")
	if err != nil {
		t.Fatal(err)
	}
	start, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || start < 2 {
		t.Skipf("[sysctl]: ip_unprivileged_port_start is %q: every port is unprivileged", b)
	}
	low := fmt.Sprintf("127.0.0.1:%d", start-1)
	dir := worldDir(t)
	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(private, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, ln)
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	r := runChild(t, nobody, allowAll, "bind,"+low, "unix,"+filepath.Join(private, "s.sock"))
	if r.lines[0] != "err:EACCES" || r.lines[1] != "err:EACCES" {
		t.Errorf("uid 65534: %q, want err:EACCES for both", r.lines)
	}
	r = runChild(t, nil, allowAll, "bind,"+low, "unix,"+filepath.Join(private, "s.sock"))
	if r.lines[0] != "ok:" || r.lines[1] != "ok:ping" {
		t.Errorf("root: %q, want both to work", r.lines)
	}
}

// TestUnixSymlinkReportsWhereItLeads: a symlink with an allowed name
// that leads to another socket is decided (and reported) as that
// socket, which is then the one connected, whatever the link says by
// the time the kernel would have followed it.
func TestUnixSymlinkReportsWhereItLeads(t *testing.T) {
	dir := worldDir(t)
	real := filepath.Join(dir, "real.sock")
	ln, err := net.Listen("unix", real)
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, ln)
	if err := os.Symlink("real.sock", filepath.Join(dir, "allowed.sock")); err != nil {
		t.Fatal(err)
	}
	deny := func(a Access) bool { return a.Dest.Unix != real }
	r := runChild(t, nil, deny, "unix,"+filepath.Join(dir, "allowed.sock"))
	if r.lines[0] != "err:EACCES" {
		t.Errorf("child: %q, want err:EACCES", r.lines[0])
	}
	want := Access{Op: "connect", Dest: Dest{Family: "unix", Unix: real}, Syscall: "connect", Denied: true}
	if !has(r.accesses, want) {
		t.Errorf("accesses %+v lack %+v", r.accesses, want)
	}
}

// TestConnectToUnspecifiedIsDecidedWhereItWent: 0.0.0.0 as a
// destination is the local host: the kernel connects to the socket's
// bound address, or 127.0.0.1 if unbound. That address is decided on
// and reported, and the kernel is given it.
func TestConnectToUnspecifiedIsDecidedWhereItWent(t *testing.T) {
	two, _ := tcpEcho(t, "127.0.0.2:0")
	one, _ := tcpEcho(t, "127.0.0.1:0")
	q2, q1 := netip.MustParseAddrPort(two).Port(), netip.MustParseAddrPort(one).Port()
	to2 := fmt.Sprintf("0.0.0.0:%d", q2)
	to1 := fmt.Sprintf("0.0.0.0:%d", q1)
	r := runChild(t, nil, allowAll, "tcpfrom,127.0.0.2:0,"+to2, "tcp,"+to1)
	if r.lines[0] != "ok:ping" || r.lines[1] != "ok:ping" {
		t.Fatalf("child: %q", r.lines)
	}
	for _, want := range []Access{
		{Op: "connect", Dest: inetDest(two), Syscall: "connect"},
		{Op: "connect", Dest: inetDest(one), Syscall: "connect"},
	} {
		if !has(r.accesses, want) {
			t.Errorf("accesses %+v lack %+v", r.accesses, want)
		}
	}
	bindOnly := func(a Access) bool { return a.Op == "bind" || denyHost("127.0.0.2")(a) }
	r = runChild(t, nil, bindOnly, "tcpfrom,127.0.0.2:0,"+to2)
	if r.lines[0] != "err:EACCES" {
		t.Errorf("child: %q, want err:EACCES (a rule on 127.0.0.2)", r.lines[0])
	}
}

// TestShortSockaddrIn6: a 24-byte sockaddr_in6 (RFC 2133's, without
// sin6_scope_id) is one the kernel takes, and so does the proxy.
func TestShortSockaddrIn6(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, ln)
	addr := ln.Addr().String()
	r := runChild(t, nil, allowAll, "tcp6short,"+addr)
	if r.lines[0] != "ok:ping" {
		t.Fatalf("child: %q", r.lines[0])
	}
	ap := netip.MustParseAddrPort(addr)
	want := Access{Op: "connect", Dest: Dest{Family: "inet6", Addr: ap.Addr(), Port: ap.Port()}, Syscall: "connect"}
	if !has(r.accesses, want) {
		t.Errorf("accesses %+v lack %+v", r.accesses, want)
	}
}
