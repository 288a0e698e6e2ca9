package harness

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/net/publicsuffix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/dnsrec"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// runResolver is the run's recording DNS forwarder (internal/dnsrec)
// and the files that point the run at it: its own /etc/resolv.conf and
// /etc/nsswitch.conf, bound over the machine's in its mount namespace.
type runResolver struct {
	fwd *dnsrec.Forwarder
	dir string
	// hosts are the machine's /etc/hosts names, read before the run: an
	// agent that writes the file during the run names nothing by it.
	hosts map[netip.Addr][]string
}

// startResolver starts the run's forwarder before its launcher: the
// resolv.conf it is bound over names the forwarder's address. Without
// one (no port 53, no mount namespace, no upstream) the run still sees
// every destination, as a bare address, and says why it has no names.
//
// A run that does not observe the network gets the forwarder only when
// the caller named resolvers (WithResolvers): its lookups are answered
// there, and nothing is recorded.
func (p *runPlan) startResolver(s *started) error {
	if !p.network && len(p.cfg.upstreams) == 0 {
		return nil
	}
	hosts, err := dnsrec.HostsNames("/etc/hosts")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("network: reading the machine's names: %w", err)
	}
	if p.setup.NoFence {
		p.noNames("the run has no mount namespace of its own, so it cannot be given a resolv.conf naming sysgate's recording forwarder")
		return nil
	}
	upstreams := p.cfg.upstreams
	if len(upstreams) == 0 {
		ups, err := dnsrec.Nameservers("/etc/resolv.conf")
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("network: reading the machine's resolvers: %w (fix /etc/resolv.conf)", err)
		}
		for _, u := range ups {
			upstreams = append(upstreams, u.String())
		}
	}
	fwd, err := dnsrec.Start(upstreams)
	switch {
	case errors.Is(err, dnsrec.ErrPort53):
		p.noNames("sysgate may not listen on port 53 of a loopback address (it needs root or CAP_NET_BIND_SERVICE, or net.ipv4.ip_unprivileged_port_start=53)")
		return nil
	case errors.Is(err, dnsrec.ErrNoUpstream):
		p.noNames("/etc/resolv.conf names no resolver to forward to")
		return nil
	case err != nil:
		return fmt.Errorf("network: the run's DNS forwarder: %w", err)
	}
	r := &runResolver{fwd: fwd, hosts: hosts}
	s.undo = append(s.undo, func() {
		_ = fwd.Close()
		if r.dir != "" {
			_ = os.RemoveAll(r.dir)
		}
	})
	if err := r.writeFiles(fwd.Addr().Addr()); err != nil {
		return fmt.Errorf("network: the run's resolv.conf: %w", err)
	}
	p.setup.BindFiles = append(p.setup.BindFiles, kernel.BindFile{Source: filepath.Join(r.dir, "resolv.conf"), Target: "/etc/resolv.conf"})
	if _, err := os.Stat("/etc/nsswitch.conf"); err == nil {
		p.setup.BindFiles = append(p.setup.BindFiles, kernel.BindFile{Source: filepath.Join(r.dir, "nsswitch.conf"), Target: "/etc/nsswitch.conf"})
	}
	p.resolver = r
	return nil
}

// noNames notes why the run's lookups are not recorded.
func (p *runPlan) noNames(why string) {
	// Every report lists it with the weakenings (Result.NamesUnrecorded).
	p.resolverNote = why
}

// writeFiles writes the run's resolv.conf and nsswitch.conf into a
// directory of their own, readable by the agent (its uid may not be
// ours): the launcher binds them before it drops privileges.
func (r *runResolver) writeFiles(addr netip.Addr) error {
	dir, err := os.MkdirTemp("", "sysgate-dns-")
	if err != nil {
		return err
	}
	r.dir = dir
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "resolv.conf"), dnsrec.ResolvConf(addr), 0o644); err != nil {
		return err
	}
	orig, err := os.ReadFile("/etc/nsswitch.conf")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "nsswitch.conf"), dnsrec.NsswitchHosts(orig), 0o644)
}

// nameFor is the name a lookup of this run gave addr, or the machine's
// hosts file (not for loopback addresses: "localhost" names every
// loopback connect, whoever meant it).
func (r *runResolver) nameFor(addr netip.Addr) string {
	if name, ok := r.fwd.NameFor(addr); ok {
		return name
	}
	if addr.IsLoopback() {
		return ""
	}
	if names := r.hosts[addr.Unmap()]; len(names) > 0 {
		return names[0]
	}
	return ""
}

// own reports the run's forwarder itself: the agent's lookups reach it
// on port 53, and are recorded as lookups, not as destinations.
func (r *runResolver) own(d baseline.Destination) bool {
	a := r.fwd.Addr()
	return d.Unix == "" && d.Addr == a.Addr() && d.Port == a.Port()
}

// addLookups hands the names the run looked up to the book, as resolve
// calls. A name no entry can spell (bytes outside letters, digits, "-",
// "_" and dots) is data in a query: the run cannot vouch for it.
func (r *runResolver) addLookups(b *netBook, queries []dnsrec.Query) {
	for _, q := range queries {
		if !plainName(q.Name) {
			b.unverify(fmt.Sprintf("the run looked up %q, a name no baseline entry can list", q.Name))
			continue
		}
		b.add(netAccess{Op: baseline.NetResolve, Dest: baseline.Destination{Name: q.Name}, Syscall: "dns"})
	}
	if n := r.fwd.Dropped(); n > 0 {
		b.unverify(fmt.Sprintf("%d lookups past what the run's forwarder keeps", n))
	}
}

func plainName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// names are the names the run looked up, with the addresses their
// answers gave, sorted.
func (r *runResolver) names(queries []dnsrec.Query) []verdict.ResolvedName {
	by := map[string]*verdict.ResolvedName{}
	seen := map[string]map[string]bool{}
	for _, q := range queries {
		n, ok := by[q.Name]
		if !ok {
			if len(by) >= verdict.MaxKept {
				continue
			}
			n = &verdict.ResolvedName{Name: q.Name}
			by[q.Name], seen[q.Name] = n, map[string]bool{}
		}
		for _, a := range q.Answers {
			if s := a.String(); !seen[q.Name][s] {
				seen[q.Name][s] = true
				n.Addrs = append(n.Addrs, s)
			}
		}
		if q.Rcode != "NOERROR" {
			n.Rcode = q.Rcode
		} else if len(q.Answers) > 0 {
			n.Rcode = ""
		}
	}
	out := make([]verdict.ResolvedName, 0, len(by))
	for _, n := range by {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// tunnelling are the domains under which the run looked up more than
// tunnelNames distinct names, as "*.example.com (41 names)": each
// registrable domain, then the wider groups of wideTunnelling.
func (r *runResolver) tunnelling(queries []dnsrec.Query, m *baseline.NetworkMatcher) []string {
	var out []string
	for _, d := range r.fwd.Tunnelling(tunnelNames) {
		distinct := map[string]bool{}
		for _, q := range queries {
			if strings.HasSuffix(q.Name, "."+d) {
				distinct[q.Name] = true
			}
		}
		out = append(out, fmt.Sprintf("*.%s (%d names)", d, len(distinct)))
	}
	return append(out, wideTunnelling(queries, m, tunnelNames)...)
}

// wideTunnelling counts names in groups wider than a registrable
// domain, where each name may be a registrable domain of its own: the
// resolve entry of m (nil: none) that allowed the name, when its
// pattern has a "*" ("*.githubusercontent.com", "*.com"), and a public
// suffix from the list's private part, a registry's own zone
// ("githubusercontent.com", "github.io"). A group of more than
// threshold distinct names under more than one registrable domain is
// returned (one under a single domain is counted as that domain), as
// "<group> (<n> names)", sorted.
func wideTunnelling(queries []dnsrec.Query, m *baseline.NetworkMatcher, threshold int) []string {
	names := map[string]map[string]bool{}
	domains := map[string]map[string]bool{}
	add := func(group, name string) {
		if names[group] == nil {
			names[group], domains[group] = map[string]bool{}, map[string]bool{}
		}
		names[group][name] = true
		d, err := publicsuffix.EffectiveTLDPlusOne(name)
		if err != nil {
			d = name
		}
		domains[group][d] = true
	}
	for _, q := range queries {
		if m != nil {
			if e, ok := m.Lookup(baseline.NetResolve, baseline.Destination{Name: q.Name}, ""); ok && strings.Contains(e.Pattern, "*") {
				add(e.Pattern, q.Name)
			}
		}
		if suffix, icann := publicsuffix.PublicSuffix(q.Name); !icann && suffix != q.Name && strings.Contains(suffix, ".") {
			add("*."+suffix, q.Name)
		}
	}
	var out []string
	for group, set := range names {
		if len(set) > threshold && len(domains[group]) > 1 {
			out = append(out, fmt.Sprintf("%s (%d names)", group, len(set)))
		}
	}
	sort.Strings(out)
	return out
}

// NamesUnavailable says why a run here would not record the names its
// agent looks up ("" when it would): the run's forwarder needs port 53
// on a loopback address. For sysgate doctor; it binds 127.53.0.255:53, an
// address no run's forwarder takes, and lets it go.
func NamesUnavailable() string {
	pc, err := net.ListenPacket("udp", "127.53.0.255:53")
	if err != nil {
		if errors.Is(err, syscall.EACCES) {
			return "sysgate may not listen on port 53 of a loopback address: run as root, give the binary CAP_NET_BIND_SERVICE (setcap cap_net_bind_service+ep), or set net.ipv4.ip_unprivileged_port_start=53"
		}
		return fmt.Sprintf("port 53 on loopback: %v", err)
	}
	_ = pc.Close()
	return ""
}
