package dnsrec

import (
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/net/publicsuffix"
)

// Caps on what one forwarder keeps: the names are the agent's data, and an
// agent tunnelling through DNS would otherwise grow them without bound.
const (
	maxQueries        = 1 << 16
	maxAddrs          = 1 << 16
	maxNamesPerDomain = 1 << 12
	maxDomains        = 1 << 12
)

// Query is one question the forwarder answered.
type Query struct {
	Name      string       // queried name, lowercase, no trailing dot
	Type      string       // "A", "AAAA", "HTTPS", ...
	Answers   []netip.Addr // A and AAAA answers, and HTTPS/SVCB address hints
	CNAMEs    []string     // CNAME targets in the answer, in order
	Rcode     string       // "NOERROR", "NXDOMAIN", "SERVFAIL", ...
	Client    netip.AddrPort
	At        time.Time
	Transport string // "udp" or "tcp"
	Error     string // why no upstream answered (then Rcode is SERVFAIL)
}

type recorder struct {
	mu      sync.Mutex
	queries []Query
	dropped int
	names   map[netip.Addr]string
	domains map[string]map[string]struct{}
}

func (r *recorder) init() {
	r.names = make(map[netip.Addr]string)
	r.domains = make(map[string]map[string]struct{})
}

func (r *recorder) add(q Query, resp *dns.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queries) < maxQueries {
		r.queries = append(r.queries, q)
	} else {
		r.dropped++
	}
	if q.Name != "" {
		r.countName(q.Name)
	}
	if resp == nil || resp.Rcode != dns.RcodeSuccess {
		return
	}
	for _, a := range q.Answers {
		if _, ok := r.names[a]; ok || len(r.names) < maxAddrs {
			r.names[a] = q.Name
		}
	}
}

// countName adds name to the distinct names under its registrable domain.
// Past the caps further names are not counted: the domain is over any
// useful threshold by then.
func (r *recorder) countName(name string) {
	domain := registrable(name)
	set, ok := r.domains[domain]
	if !ok {
		if len(r.domains) >= maxDomains {
			return
		}
		set = make(map[string]struct{})
		r.domains[domain] = set
	}
	if len(set) < maxNamesPerDomain {
		set[name] = struct{}{}
	}
}

// registrable is name's registrable domain (eTLD+1), or name itself when it
// has none (a public suffix, a single label).
func registrable(name string) string {
	d, err := publicsuffix.EffectiveTLDPlusOne(name)
	if err != nil {
		return name
	}
	return d
}

// Queries returns a copy of the recorded queries in the order they were
// answered.
func (f *Forwarder) Queries() []Query {
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	return slices.Clone(f.rec.queries)
}

// Dropped is how many queries were answered but not kept (past the cap).
func (f *Forwarder) Dropped() int {
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	return f.rec.dropped
}

// NameFor is the queried name whose successful answer contained addr in
// this forwarder's life, the most recent one when several did. A CNAME
// chain maps its final addresses to the name the client asked for, not to
// the CDN's name. IPv4-mapped IPv6 addresses match their IPv4 form.
func (f *Forwarder) NameFor(addr netip.Addr) (string, bool) {
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	name, ok := f.rec.names[addr.Unmap().WithZone("")]
	return name, ok
}

// Tunnelling returns the registrable domains (sorted) under which more
// than threshold distinct names were queried: data smuggled out in the
// labels of queries shows up as many names under one domain.
func (f *Forwarder) Tunnelling(threshold int) []string {
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	var out []string
	for domain, set := range f.rec.domains {
		if len(set) > threshold {
			out = append(out, domain)
		}
	}
	slices.Sort(out)
	return out
}

func questionOf(req *dns.Msg) (name, typ string) {
	q := req.Question[0]
	name = strings.ToLower(strings.TrimSuffix(q.Name, "."))
	typ, ok := dns.TypeToString[q.Qtype]
	if !ok {
		typ = dns.Type(q.Qtype).String()
	}
	return name, typ
}

// answersOf collects the addresses a client could connect to from resp's
// answer section and the CNAME targets on the way to them.
func answersOf(resp *dns.Msg) (addrs []netip.Addr, cnames []string) {
	for _, rr := range resp.Answer {
		switch rr := rr.(type) {
		case *dns.A:
			addrs = appendIP(addrs, rr.A)
		case *dns.AAAA:
			addrs = appendIP(addrs, rr.AAAA)
		case *dns.CNAME:
			cnames = append(cnames, strings.ToLower(strings.TrimSuffix(rr.Target, ".")))
		case *dns.HTTPS:
			addrs = appendHints(addrs, rr.Value)
		case *dns.SVCB:
			addrs = appendHints(addrs, rr.Value)
		}
	}
	return addrs, cnames
}

func appendHints(addrs []netip.Addr, kvs []dns.SVCBKeyValue) []netip.Addr {
	for _, kv := range kvs {
		switch kv := kv.(type) {
		case *dns.SVCBIPv4Hint:
			for _, ip := range kv.Hint {
				addrs = appendIP(addrs, ip)
			}
		case *dns.SVCBIPv6Hint:
			for _, ip := range kv.Hint {
				addrs = appendIP(addrs, ip)
			}
		}
	}
	return addrs
}

func appendIP(addrs []netip.Addr, ip net.IP) []netip.Addr {
	if a, ok := netip.AddrFromSlice(ip); ok {
		addrs = append(addrs, a.Unmap())
	}
	return addrs
}
