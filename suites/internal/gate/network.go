package gate

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"

	"github.com/miekg/dns"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/internal/dnsrec"
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
// address) over UDP on a loopback port of its own, NXDOMAIN for
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
	// UDP only: the answers are small, and a forwarder asks over TCP
	// only for a truncated one.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	srv := &dns.Server{PacketConn: pc, Handler: handler}
	Expect(dnsrec.Activate(srv)).To(Succeed())
	DeferCleanup(srv.Shutdown)
	return pc.LocalAddr().String()
}

// NamesRecorded reports whether a run here gets its recording DNS
// forwarder, which needs port 53 on a loopback address: root, or
// CAP_NET_BIND_SERVICE, or a low net.ipv4.ip_unprivileged_port_start.
// Without it a run's lookups go to the machine's resolver, which knows
// none of a spec's names (see verdict.Result.NamesUnrecorded).
func NamesRecorded() bool {
	if os.Geteuid() == 0 {
		return true // a run as root always has it: a failure to bind fails the spec
	}
	pc, err := net.ListenPacket("udp", "127.53.0.255:53")
	if err != nil {
		return false
	}
	_ = pc.Close()
	return true
}

// RequireNames skips a spec about names where runs cannot record them
// (the notify backend without root), saying why. Root never skips: CI
// runs every such spec as root.
func RequireNames() {
	GinkgoHelper()
	if !NamesRecorded() {
		Skip("names are not recorded here: the run's DNS forwarder needs port 53 on loopback (root, CAP_NET_BIND_SERVICE or net.ipv4.ip_unprivileged_port_start=53); the spec runs as root in CI")
	}
}
