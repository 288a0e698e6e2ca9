package gate

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"

	"github.com/miekg/dns"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// LoopbackAt serves body over HTTP on addr (a loopback address other
// than 127.0.0.1: a second host as far as the network section goes) and
// returns host:port.
func LoopbackAt(addr, body string) string {
	GinkgoHelper()
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	srv.Listener = l
	srv.Start()
	DeferCleanup(srv.Close)
	return l.Addr().String()
}

// Resolver answers A queries for the names in zone (name -> IPv4
// address) over UDP and TCP on a loopback port of its own, NXDOMAIN for
// the rest, and returns its "addr:port": a run's forwarder passes the
// agent's lookups there (harness.WithResolvers), so nothing leaves the
// machine.
func Resolver(zone map[string]string) string {
	GinkgoHelper()
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		found := false
		for _, question := range q.Question {
			addr, ok := zone[strings.TrimSuffix(strings.ToLower(question.Name), ".")]
			if !ok {
				continue
			}
			found = true
			if question.Qtype == dns.TypeA {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: question.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60},
					A: netip.MustParseAddr(addr).AsSlice()})
			}
		}
		if !found {
			m.Rcode = dns.RcodeNameError
		}
		_ = w.WriteMsg(m)
	})
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	port := pc.LocalAddr().(*net.UDPAddr).Port
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	Expect(err).NotTo(HaveOccurred())
	udp := &dns.Server{PacketConn: pc, Handler: handler}
	tcp := &dns.Server{Listener: l, Handler: handler}
	for _, s := range []*dns.Server{udp, tcp} {
		started := make(chan struct{})
		s.NotifyStartedFunc = func() { close(started) }
		go func() { _ = s.ActivateAndServe() }()
		<-started
		DeferCleanup(s.Shutdown)
	}
	return pc.LocalAddr().String()
}
