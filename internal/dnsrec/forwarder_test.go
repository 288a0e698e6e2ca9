package dnsrec

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/miekg/dns"

	"github.com/sysgate/sysgate/internal/testutil"
)

func TestRecordsAAndAAAA(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	// Through Go's own resolver, the way a Go agent would ask.
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, f.Addr().String())
	}}
	got, err := r.LookupNetIP(context.Background(), "ip", "A.test")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}
	for _, a := range want {
		if !slices.Contains(got, a) {
			t.Errorf("lookup through forwarder = %v, want %v", got, want)
		}
		if name, ok := f.NameFor(a); !ok || name != "a.test" {
			t.Errorf("NameFor(%s) = %q, %v; want a.test", a, name, ok)
		}
	}
	types := map[string]Query{}
	for _, q := range f.Queries() {
		types[q.Type] = q
	}
	if q := types["A"]; q.Name != "a.test" || q.Rcode != "NOERROR" || !slices.Equal(q.Answers, want[:1]) || !q.Client.Addr().IsLoopback() || q.At.IsZero() {
		t.Errorf("A query recorded as %+v", q)
	}
	if q := types["AAAA"]; q.Name != "a.test" || !slices.Equal(q.Answers, want[1:]) {
		t.Errorf("AAAA query recorded as %+v", q)
	}
	if _, ok := f.NameFor(netip.MustParseAddr("192.0.2.2")); ok {
		t.Error("NameFor an address no answer had: found")
	}
}

func TestNameForFollowsCNAMEChainToQueriedName(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	ask(t, "udp", f.Addr().String(), "www.cdn.test", dns.TypeA)
	edge := netip.MustParseAddr("198.51.100.7")
	if name, ok := f.NameFor(edge); !ok || name != "www.cdn.test" {
		t.Fatalf("NameFor(%s) = %q, %v; want www.cdn.test", edge, name, ok)
	}
	q := f.Queries()[0]
	if !slices.Equal(q.CNAMEs, []string{"edge.cdn.test", "e1.akamai.test"}) {
		t.Errorf("CNAMEs = %q", q.CNAMEs)
	}
	// The same edge later answers for another name: most recent wins.
	ask(t, "udp", f.Addr().String(), "other.test", dns.TypeA)
	if name, _ := f.NameFor(edge); name != "other.test" {
		t.Errorf("NameFor after a later answer = %q, want other.test", name)
	}
}

func TestNameForMappedAndHints(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	ask(t, "udp", f.Addr().String(), "mapped.test", dns.TypeAAAA)
	ask(t, "udp", f.Addr().String(), "svc.test", dns.TypeHTTPS)
	for addr, want := range map[string]string{
		"203.0.113.9":        "mapped.test", // the AAAA was ::ffff:203.0.113.9
		"::ffff:203.0.113.9": "mapped.test",
		"203.0.113.20":       "svc.test",
		"2001:db8::20":       "svc.test",
	} {
		if name, ok := f.NameFor(netip.MustParseAddr(addr)); !ok || name != want {
			t.Errorf("NameFor(%s) = %q, %v; want %s", addr, name, ok, want)
		}
	}
}

func TestNXDOMAINRecorded(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	resp := ask(t, "udp", f.Addr().String(), "missing.test", dns.TypeA)
	if resp.Rcode != dns.RcodeNameError {
		t.Fatalf("client got rcode %s, want NXDOMAIN", dns.RcodeToString[resp.Rcode])
	}
	qs := f.Queries()
	if len(qs) != 1 || qs[0].Name != "missing.test" || qs[0].Rcode != "NXDOMAIN" || len(qs[0].Answers) != 0 {
		t.Errorf("recorded %+v", qs)
	}
}

func TestTruncatedAnswerFallsBackToTCP(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	udp := ask(t, "udp", f.Addr().String(), "big.test", dns.TypeA)
	if !udp.Truncated || len(udp.Answer) >= bigAnswers {
		t.Fatalf("UDP answer: truncated=%v with %d records, want TC set and fewer than %d", udp.Truncated, len(udp.Answer), bigAnswers)
	}
	if up.tcpHits.Load() == 0 {
		t.Error("forwarder did not retry the upstream over TCP after a truncated answer")
	}
	tcp := ask(t, "tcp", f.Addr().String(), "big.test", dns.TypeA)
	if tcp.Truncated || len(tcp.Answer) != bigAnswers {
		t.Fatalf("TCP answer: truncated=%v with %d records, want %d", tcp.Truncated, len(tcp.Answer), bigAnswers)
	}
	qs := f.Queries()
	if len(qs) != 2 || qs[0].Transport != "udp" || qs[1].Transport != "tcp" {
		t.Fatalf("recorded %+v", qs)
	}
	// The record holds the whole answer even when the client got a part.
	if len(qs[0].Answers) != bigAnswers {
		t.Errorf("UDP query recorded %d answers, want %d", len(qs[0].Answers), bigAnswers)
	}
	if name, ok := f.NameFor(netip.MustParseAddr("10.1.0.100")); !ok || name != "big.test" {
		t.Errorf("NameFor the 100th answer = %q, %v", name, ok)
	}
}

func TestConcurrentQueriesAndTunnelling(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			m := new(dns.Msg).SetQuestion(fmt.Sprintf("n%d.many.test.", i), dns.TypeA)
			resp, _, err := (&dns.Client{}).Exchange(m, f.Addr().String())
			if err != nil {
				errs <- err
				return
			}
			want := netip.AddrFrom4([4]byte{10, 2, byte(i / 250), byte(i%250 + 1)})
			if a, ok := resp.Answer[0].(*dns.A); !ok || netip.MustParseAddr(a.A.String()) != want {
				errs <- fmt.Errorf("n%d: answer %v, want %s", i, resp.Answer, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(f.Queries()); got != n {
		t.Errorf("recorded %d queries, want %d", got, n)
	}
	for i := range n {
		a := netip.AddrFrom4([4]byte{10, 2, byte(i / 250), byte(i%250 + 1)})
		if name, _ := f.NameFor(a); name != fmt.Sprintf("n%d.many.test", i) {
			t.Errorf("NameFor(%s) = %q", a, name)
		}
	}
	ask(t, "udp", f.Addr().String(), "a.test", dns.TypeA)
	if got := f.Tunnelling(n - 1); !slices.Equal(got, []string{"many.test"}) {
		t.Errorf("Tunnelling(%d) = %q, want [many.test]", n-1, got)
	}
	if got := f.Tunnelling(n); len(got) != 0 {
		t.Errorf("Tunnelling(%d) = %q, want none", n, got)
	}
}

func TestTunnellingUsesRegistrableDomain(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	// co.uk is a public suffix: x.evil.co.uk and y.z.evil.co.uk are both
	// under evil.co.uk; a.other.co.uk is not.
	for _, name := range []string{"x.evil.co.uk", "y.z.evil.co.uk", "Y.Z.evil.co.uk", "a.other.co.uk"} {
		ask(t, "udp", f.Addr().String(), name, dns.TypeA)
	}
	if got := f.Tunnelling(1); !slices.Equal(got, []string{"evil.co.uk"}) {
		t.Errorf("Tunnelling(1) = %q, want [evil.co.uk] (case-folded names count once)", got)
	}
	if got := f.Tunnelling(2); len(got) != 0 {
		t.Errorf("Tunnelling(2) = %q, want none", got)
	}
}

func TestUpstreamFailover(t *testing.T) {
	up := startUpstream(t)
	dead := deadUDPAddr(t)
	f := startForwarder(t, dead, up.addr)
	if resp := ask(t, "udp", f.Addr().String(), "a.test", dns.TypeA); len(resp.Answer) != 1 {
		t.Fatalf("answer via the second upstream: %v", resp)
	}
	g := startForwarder(t, dead)
	resp := ask(t, "udp", g.Addr().String(), "a.test", dns.TypeA)
	qs := g.Queries()
	if resp.Rcode != dns.RcodeServerFailure || len(qs) != 1 || qs[0].Rcode != "SERVFAIL" || qs[0].Error == "" {
		t.Errorf("no upstream: client rcode %s, recorded %+v", dns.RcodeToString[resp.Rcode], qs)
	}
}

// deadUDPAddr is a loopback port nothing listens on: a query there is
// refused at once (ICMP port unreachable) instead of timing out.
func deadUDPAddr(t *testing.T) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

func TestCloseReleasesPorts(t *testing.T) {
	up := startUpstream(t)
	f, err := StartAt(netip.MustParseAddrPort("127.0.0.1:0"), []string{up.addr})
	if err != nil {
		t.Fatal(err)
	}
	ask(t, "tcp", f.Addr().String(), "a.test", dns.TypeA)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	requireFree(t, f.Addr())
	if len(f.Queries()) != 1 {
		t.Error("records lost on Close")
	}
}

func requireFree(t *testing.T, at netip.AddrPort) {
	t.Helper()
	pc, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(at))
	if err != nil {
		t.Fatalf("UDP port still held after Close: %v", err)
	}
	pc.Close()
	ln, err := net.ListenTCP("tcp", net.TCPAddrFromAddrPort(at))
	if err != nil {
		t.Fatalf("TCP port still held after Close: %v", err)
	}
	ln.Close()
}

func TestStartOnPort53(t *testing.T) {
	testutil.RequireRoot(t)
	up := startUpstream(t)
	f, err := Start([]string{up.addr})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Addr().Port() != 53 || !netip.MustParsePrefix("127.53.0.0/24").Contains(f.Addr().Addr()) {
		t.Fatalf("Addr = %s, want port 53 in 127.53.0.0/24", f.Addr())
	}
	// A second forwarder (another run) takes the next free address.
	g, err := Start([]string{up.addr})
	if err != nil {
		t.Fatal(err)
	}
	if g.Addr() == f.Addr() {
		t.Fatalf("two forwarders on %s", g.Addr())
	}
	ask(t, "udp", g.Addr().String(), "a.test", dns.TypeA)
	// Not checked for a free port after Close, unlike
	// TestCloseReleasesPorts: another test process's Start may take the
	// address the moment it is released (seen with four test binaries at
	// once).
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	// What the run's resolv.conf names is where the forwarder listens.
	if got := ParseNameservers(ResolvConf(f.Addr().Addr())); !slices.Equal(got, []netip.AddrPort{f.Addr()}) {
		t.Errorf("ResolvConf names %v, forwarder at %s", got, f.Addr())
	}
}

func TestStartRejectsBadUpstreams(t *testing.T) {
	for _, ups := range [][]string{nil, {"resolver.example"}, {"1.2.3.4:x"}} {
		f, err := StartAt(netip.MustParseAddrPort("127.0.0.1:0"), ups)
		if err == nil {
			f.Close()
			t.Errorf("StartAt with upstreams %q: no error", ups)
		}
	}
	if _, err := Start(nil); !errors.Is(err, ErrNoUpstream) {
		t.Errorf("Start(nil) = %v, want ErrNoUpstream", err)
	}
}
