package dnsrec

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/miekg/dns"
)

func TestRecordIsCapped(t *testing.T) {
	f := &Forwarder{}
	f.rec.init()
	for i := range maxQueries + 3 {
		f.rec.add(Query{Name: fmt.Sprintf("n%d.tunnel.test", i)}, nil)
	}
	if got := len(f.Queries()); got != maxQueries {
		t.Errorf("kept %d queries, want the cap %d", got, maxQueries)
	}
	if f.Dropped() != 3 {
		t.Errorf("Dropped = %d, want 3", f.Dropped())
	}
	if got := len(f.rec.domains["tunnel.test"]); got != maxNamesPerDomain {
		t.Errorf("kept %d names under tunnel.test, want the cap %d", got, maxNamesPerDomain)
	}
	// Past the cap the domain still reads as tunnelling.
	if got := f.Tunnelling(maxNamesPerDomain - 1); len(got) != 1 || got[0] != "tunnel.test" {
		t.Errorf("Tunnelling = %q", got)
	}
}

// A message that is no single-question query is refused and never
// forwarded: miekg/dns's server refuses one without exactly one question
// before the handler sees it, and the handler refuses other opcodes
// (NOTIFY) itself, recording them.
func TestNonQueryRefused(t *testing.T) {
	up := startUpstream(t)
	f := startForwarder(t, up.addr)
	empty := new(dns.Msg)
	empty.Id = dns.Id()
	notify := new(dns.Msg).SetNotify("a.test.")
	for _, m := range []*dns.Msg{empty, notify} {
		resp, _, err := (&dns.Client{}).Exchange(m, f.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Rcode != dns.RcodeFormatError {
			t.Errorf("%s: rcode %s, want FORMERR", m.String(), dns.RcodeToString[resp.Rcode])
		}
	}
	qs := f.Queries()
	if len(qs) != 1 || qs[0].Rcode != "FORMERR" || qs[0].Name != "" {
		t.Errorf("recorded %+v, want the NOTIFY as FORMERR", qs)
	}
	if _, ok := f.NameFor(netip.Addr{}); ok {
		t.Error("NameFor the zero address: found")
	}
}
