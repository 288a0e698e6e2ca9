package dnsrec

import (
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// fakeUpstream is a DNS server the test runs on 127.0.0.1 (UDP and TCP on
// one port) with a fixed zone; it counts the queries it got over TCP.
type fakeUpstream struct {
	addr    string
	tcpHits atomic.Int64
}

const bigAnswers = 100

func startUpstream(t testing.TB) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{}
	pc, ln, err := listenPair(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	u.addr = pc.LocalAddr().String()
	udp := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(u.serve)}
	tcp := &dns.Server{Listener: ln, Handler: dns.HandlerFunc(u.serve)}
	for _, srv := range []*dns.Server{udp, tcp} {
		if err := Activate(srv); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return u
}

func rr(s string) dns.RR {
	r, err := dns.NewRR(s)
	if err != nil {
		panic(fmt.Sprintf("test zone %q: %v", s, err))
	}
	return r
}

func (u *fakeUpstream) serve(w dns.ResponseWriter, req *dns.Msg) {
	resp := new(dns.Msg).SetReply(req)
	tcp := w.LocalAddr().Network() == "tcp"
	if tcp {
		u.tcpHits.Add(1)
	}
	q := req.Question[0]
	name := strings.ToLower(q.Name)
	switch {
	case name == "a.test." && q.Qtype == dns.TypeA:
		resp.Answer = append(resp.Answer, rr("a.test. 60 IN A 192.0.2.1"))
	case name == "a.test." && q.Qtype == dns.TypeAAAA:
		resp.Answer = append(resp.Answer, rr("a.test. 60 IN AAAA 2001:db8::1"))
	case name == "www.cdn.test.":
		resp.Answer = append(resp.Answer,
			rr("www.cdn.test. 60 IN CNAME edge.cdn.test."),
			rr("edge.cdn.test. 60 IN CNAME e1.akamai.test."))
		if q.Qtype == dns.TypeA {
			resp.Answer = append(resp.Answer, rr("e1.akamai.test. 60 IN A 198.51.100.7"))
		}
	case name == "other.test." && q.Qtype == dns.TypeA:
		// Shares the CDN edge with www.cdn.test: the later answer wins.
		resp.Answer = append(resp.Answer, rr("other.test. 60 IN A 198.51.100.7"))
	case name == "mapped.test." && q.Qtype == dns.TypeAAAA:
		resp.Answer = append(resp.Answer, rr("mapped.test. 60 IN AAAA ::ffff:203.0.113.9"))
	case name == "svc.test." && q.Qtype == dns.TypeHTTPS:
		resp.Answer = append(resp.Answer, rr(`svc.test. 60 IN HTTPS 1 . alpn="h2" ipv4hint="203.0.113.20" ipv6hint="2001:db8::20"`))
	case name == "big.test." && q.Qtype == dns.TypeA:
		for i := range bigAnswers {
			resp.Answer = append(resp.Answer, rr(fmt.Sprintf("big.test. 60 IN A 10.1.%d.%d", i/250, i%250+1)))
		}
	case strings.HasSuffix(name, ".clients.test.") && q.Qtype == dns.TypeA:
		resp.Answer = append(resp.Answer, rr(name+" 60 IN A 192.0.2.50"))
	case strings.HasSuffix(name, ".many.test.") && q.Qtype == dns.TypeA:
		var n int
		if _, err := fmt.Sscanf(name, "n%d.many.test.", &n); err == nil {
			resp.Answer = append(resp.Answer, rr(fmt.Sprintf("%s 60 IN A 10.2.%d.%d", name, n/250, n%250+1)))
		}
	case strings.HasSuffix(name, ".test."):
		if name != "noaaaa.test." {
			resp.Rcode = dns.RcodeNameError
		}
	default:
		resp.Rcode = dns.RcodeRefused
	}
	if !tcp {
		resp.Truncate(udpSize(req))
	}
	_ = w.WriteMsg(resp)
}

// ask sends one question to addr over network and fails the test when no
// answer comes.
func ask(t testing.TB, network, addr, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg).SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: network}
	resp, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("ask %s %s over %s: %v", name, dns.TypeToString[qtype], network, err)
	}
	return resp
}

func startForwarder(t testing.TB, upstreams ...string) *Forwarder {
	t.Helper()
	f, err := StartAt(netip.MustParseAddrPort("127.0.0.1:0"), upstreams)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}
