package dnsrec

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"

	"github.com/miekg/dns"
)

// Nameservers reads the nameserver lines of a resolv.conf (normally the
// host's /etc/resolv.conf) as upstreams for Start. A loopback stub such as
// systemd-resolved's 127.0.0.53 is kept: forwarding to it is fine, it
// forwards on.
func Nameservers(path string) ([]netip.AddrPort, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read resolv.conf %s: %w", path, err)
	}
	servers := ParseNameservers(data)
	if len(servers) == 0 {
		// glibc, Go and c-ares would fall back to 127.0.0.1:53 here; a
		// forwarder must not guess where the host's names come from.
		return nil, fmt.Errorf("read resolv.conf %s: %w", path, ErrNoUpstream)
	}
	return servers, nil
}

// ParseNameservers returns the addresses of a resolv.conf's nameserver
// lines on port 53, in order, skipping any that is not an IP address (a
// resolver name would need DNS to resolve). Lines are split by miekg/dns.
func ParseNameservers(data []byte) []netip.AddrPort {
	conf, err := dns.ClientConfigFromReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	var out []netip.AddrPort
	for _, s := range conf.Servers {
		addr, err := netip.ParseAddr(s)
		if err != nil {
			continue
		}
		out = append(out, netip.AddrPortFrom(addr.Unmap(), 53))
	}
	return out
}

// ResolvConf returns the resolv.conf to bind over /etc/resolv.conf in the
// run's mount namespace, naming only the forwarder at addr (port 53).
//
// What the readers take from it: glibc's stub resolver reads nameserver
// (three at most), search/domain and options (ndots, timeout, attempts,
// rotate, edns0, single-request, use-vc, trust-ad, no-aaaa, ...); Go's own
// resolver reads nameserver, search/domain and most of the same options;
// c-ares (Node's dns.resolve*; Node's dns.lookup and fetch go through
// glibc's getaddrinfo) reads nameserver, search/domain, sortlist and
// options ndots/timeout/attempts/rotate. All three fall back to
// 127.0.0.1:53 when there is no nameserver line, so the file always has
// one, and only one, so there is no second server to fail over to.
//
// No search line: the host's search domains would send the agent's short
// names under the runner's internal domain; they still reach the forwarder,
// but a run should not depend on the host's domain. attempts:2 because a
// datagram can be dropped when the forwarder's socket buffer overflows in a
// burst, and a retry to the same loopback server costs nothing; timeout:5
// exceeds the forwarder's per-upstream timeout so the client hears the
// forwarder's SERVFAIL rather than giving up first. edns0 lets answers up
// to glibc's 1200 bytes come over UDP instead of a TCP retry.
func ResolvConf(addr netip.Addr) []byte {
	return fmt.Appendf(nil, "# sysgate: this run's names go through a recording forwarder\n"+
		"nameserver %s\noptions attempts:2 timeout:5 edns0\n", addr.Unmap())
}
