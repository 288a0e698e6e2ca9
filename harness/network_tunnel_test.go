package harness

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/dnsrec"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// tunnelZone is the domain the tunnelling agent looks its names up
// under; the baseline allows every name in it.
const tunnelZone = "t.sysgate.test"

// serveTunnelZone answers an A query for any name under zone with
// 127.0.0.1 (NXDOMAIN for the rest), over UDP and TCP on one loopback
// port, and returns its "addr:port" for WithResolvers.
func serveTunnelZone(t *testing.T, zone string) string {
	t.Helper()
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		for _, question := range q.Question {
			if !strings.HasSuffix(strings.ToLower(question.Name), "."+zone+".") {
				m.Rcode = dns.RcodeNameError
				continue
			}
			if question.Qtype == dns.TypeA {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: question.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60},
					A: net.IPv4(127, 0, 0, 1)})
			}
		}
		_ = w.WriteMsg(m)
	})
	// One port for both: another process may hold the UDP port's TCP twin.
	var pc net.PacketConn
	var l net.Listener
	for try := 0; l == nil; try++ {
		var err error
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)))
		if err != nil {
			pc.Close()
			if try == 10 {
				t.Fatalf("no port free for both UDP and TCP on 127.0.0.1 in 10 tries: %v", err)
			}
		}
	}
	for _, s := range []*dns.Server{{PacketConn: pc, Handler: handler}, {Listener: l, Handler: handler}} {
		if err := dnsrec.Activate(s); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Shutdown() })
	}
	return pc.LocalAddr().String()
}

// More than tunnelNames distinct names under one domain in a run is a
// violation of its own (risk dns-tunnel), even when the baseline allows
// every one of the names; five such names are clean. On both backends:
// the run's recording forwarder is the same on each.
func TestDNSTunnellingIsAViolation(t *testing.T) {
	t.Parallel()
	zone, agent := tunnelAgent(t, tunnelZone)
	var recorded bytes.Buffer
	r := mustRun(t, agent(5, &recorded), WithResolvers(zone))
	if r.Verdict != verdict.VerdictClean || strings.Count(recorded.String(), " 127.0.0.1\n") != 5 {
		t.Fatalf("record: %s\n%s", summary(r), recorded.String())
	}
	path := netBaseline(t, r.Observed, true, baseline.NetworkEntry{Op: baseline.NetResolve, Pattern: "*." + tunnelZone, Reason: "the test's own zone"})
	const many = 40
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		var out bytes.Buffer
		r := mustRun(t, agent(5, &out), WithBaselines(path), WithMode(baseline.ModeCheck), WithBackend(backend), WithResolvers(zone))
		if r.Verdict != verdict.VerdictClean || len(r.NetworkViolations) != 0 {
			t.Errorf("%s: five names: %s, network violations %v, want clean\n%s", backend, r.Verdict, r.NetworkViolations, summary(r))
		}
		if len(r.Names) != 5 {
			t.Errorf("%s: five names: names recorded %+v, want the five", backend, r.Names)
		}

		out.Reset()
		r = mustRun(t, agent(many, &out), WithBaselines(path), WithMode(baseline.ModeCheck), WithBackend(backend), WithResolvers(zone))
		if got := strings.Count(out.String(), " 127.0.0.1\n"); got != many {
			t.Fatalf("%s: %d names: the agent resolved %d: the test proves nothing\n%s", backend, many, got, out.String())
		}
		want := fmt.Sprintf("*.sysgate.test (%d names)", many)
		var tunnel []verdict.NetworkViolation
		for _, v := range r.NetworkViolations {
			if v.Op == baseline.NetResolve && v.Risk == risk.DNSTunnel {
				tunnel = append(tunnel, v)
			}
		}
		if r.Verdict != verdict.VerdictViolation || len(tunnel) != 1 || tunnel[0].Dest != want || tunnel[0].Level != risk.High {
			t.Errorf("%s: %d names: %s, network violations %v, want exactly one resolve %s [dns-tunnel, high]\n%s", backend, many, r.Verdict, r.NetworkViolations, want, summary(r))
		}
		if len(r.NetworkViolations) != 1 {
			t.Errorf("%s: %d names: network violations %v, want the tunnelling alone (the baseline allows every name)", backend, many, r.NetworkViolations)
		}
	}
}

// Under an entry on a public suffix (githubusercontent.com, the docs'
// own example) every name is a registrable domain of its own: the
// names are counted under the entry (issue 43, item 13). Before, 40
// names carrying data were clean on both backends.
func TestDNSTunnellingUnderAPublicSuffix(t *testing.T) {
	t.Parallel()
	const suffix = "githubusercontent.com"
	zone, agent := tunnelAgent(t, suffix)
	var recorded bytes.Buffer
	r := mustRun(t, agent(5, &recorded), WithResolvers(zone))
	if r.Verdict != verdict.VerdictClean {
		t.Fatalf("record: %s\n%s", summary(r), recorded.String())
	}
	path := netBaseline(t, r.Observed, true, baseline.NetworkEntry{Op: baseline.NetResolve, Pattern: "*." + suffix, Reason: "raw files"})
	const many = 40
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		var out bytes.Buffer
		r := mustRun(t, agent(many, &out), WithBaselines(path), WithMode(baseline.ModeCheck), WithBackend(backend), WithResolvers(zone))
		if got := strings.Count(out.String(), " 127.0.0.1\n"); got != many {
			t.Fatalf("%s: the agent resolved %d of %d names: the test proves nothing\n%s", backend, got, many, out.String())
		}
		want := fmt.Sprintf("*.%s (%d names)", suffix, many)
		if r.Verdict != verdict.VerdictViolation || len(r.NetworkViolations) != 1 || r.NetworkViolations[0].Dest != want || r.NetworkViolations[0].Risk != risk.DNSTunnel {
			t.Errorf("%s: %s, network violations %v, want exactly one resolve %s [dns-tunnel]\n%s", backend, r.Verdict, r.NetworkViolations, want, summary(r))
		}
	}
}

// tunnelAgent serves zone (serveTunnelZone) and gives its resolver and
// an agent that looks up n names under it (tunnelScript).
func tunnelAgent(t *testing.T, zone string) (string, func(n int, out *bytes.Buffer) Agent) {
	resolver := serveTunnelZone(t, zone)
	py := testutil.Python(t)
	return resolver, func(n int, out *bytes.Buffer) Agent {
		return Agent{Name: "lookups", Command: []string{py, "-I", "-c", tunnelScript, strconv.Itoa(n), zone}, Stdout: out}
	}
}

// tunnelScript looks up c0 to cN-1 under the zone argv[2] through the
// C library, and prints each name with its address.
const tunnelScript = `import socket, sys
for i in range(int(sys.argv[1])):
    name = "c%d.%s" % (i, sys.argv[2])
    try:
        print(name, socket.gethostbyname(name))
    except OSError as e:
        print(name, "failed:", e)
`

// netBaseline writes the baseline recorded from o with a network
// section of entries: after what the record run reached when keep says
// so, else alone.
func netBaseline(t *testing.T, o *baseline.Observation, keep bool, entries ...baseline.NetworkEntry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), o.Agent+".yaml")
	if _, err := baseline.WriteRecorded(path, o, baseline.RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := baseline.ParseDocument(path, data)
	if err != nil {
		t.Fatalf("the recorded baseline: %v", err)
	}
	if !keep {
		doc.Network = nil
	}
	doc.HasNetwork = true
	doc.Network = append(doc.Network, entries...)
	out := doc.Format()
	if _, err := baseline.ParseDocument(path, out); err != nil {
		t.Fatalf("the gated baseline: %v\n%s", err, out)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Names are counted per registrable domain, and also under the resolve
// entry that allowed them and under a public suffix that is a
// registry's own (githubusercontent.com): there every name is its own
// registrable domain, and 31 of them carry data as well as 31 names
// under one domain do (issue 43, item 13).
func TestWideTunnelling(t *testing.T) {
	doc := "version: 1\nagent: t\nnetwork:\n  resolve:\n    - path: \"*.githubusercontent.com\"\n      reason: raw files\n    - path: \"*.com\"\n      reason: any\n    - registry.npmjs.org\nsyscalls:\n  x86_64: [read]\n"
	p, err := baseline.LoadStackFrom(func(string) ([]byte, error) { return []byte(doc), nil }, nil, "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := p.NetworkMatcher(baseline.FileContext{Workspace: "/w"})
	var qs []dnsrec.Query
	for i := range tunnelNames + 1 {
		qs = append(qs, dnsrec.Query{Name: fmt.Sprintf("c2vj%d.githubusercontent.com", i)})
		qs = append(qs, dnsrec.Query{Name: fmt.Sprintf("x%d.github.io", i)}) // a private suffix no entry names
	}
	for i := range tunnelNames {
		qs = append(qs, dnsrec.Query{Name: fmt.Sprintf("host%d.com", i)}) // 30: not past the count
	}
	qs = append(qs, dnsrec.Query{Name: "registry.npmjs.org"})
	got := strings.Join(wideTunnelling(qs, m, tunnelNames), ",")
	want := "*.github.io (31 names),*.githubusercontent.com (31 names)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Without a network section: the private suffixes still count.
	got = strings.Join(wideTunnelling(qs, nil, tunnelNames), ",")
	if got != want {
		t.Errorf("no matcher: got %q, want %q", got, want)
	}
	// One entry over several registrable domains counts them together.
	for i := range 2 {
		qs = append(qs, dnsrec.Query{Name: fmt.Sprintf("more%d.com", i)})
	}
	got = strings.Join(wideTunnelling(qs, m, tunnelNames), ",")
	if want := "*.com (32 names),*.github.io (31 names),*.githubusercontent.com (31 names)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
