package dnsrec

import (
	"testing"

	"github.com/miekg/dns"
)

// BenchmarkLookup measures what the forwarder adds to one lookup: the same
// question over UDP to the fake upstream directly and through the
// forwarder. The difference between the two is the added latency per
// lookup (the forwarder dials the upstream afresh for each query, as it
// does in a run).
func BenchmarkLookup(b *testing.B) {
	up := startUpstream(b)
	f := startForwarder(b, up.addr)
	for _, target := range []struct{ name, addr string }{
		{"direct", up.addr},
		{"forwarded", f.Addr().String()},
	} {
		b.Run(target.name, func(b *testing.B) {
			c := &dns.Client{}
			conn, err := c.Dial(target.addr)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			m := new(dns.Msg).SetQuestion("a.test.", dns.TypeA)
			for b.Loop() {
				resp, _, err := c.ExchangeWithConn(m, conn)
				if err != nil || len(resp.Answer) != 1 {
					b.Fatalf("lookup: %v %v", resp, err)
				}
			}
		})
	}
}
