package main

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

func TestNetworkHeaders(t *testing.T) {
	// The rows are the files section's: as many cells as each header.
	if got, want := strings.Count(netHeader, "\t"), strings.Count(filesHeader, "\t"); got != want {
		t.Errorf("netHeader has %d cells, filesRow %d", got, want)
	}
	if got, want := strings.Count(netMicroHeader, "\t"), strings.Count(filesMicroHeader, "\t"); got != want {
		t.Errorf("netMicroHeader has %d cells, filesMicroRow %d", got, want)
	}
	if _, err := parseSections("files,network"); err != nil {
		t.Errorf("network is a section: %v", err)
	}
}

func TestLookupRowCells(t *testing.T) {
	// The forwarder adds 30 us in the median pair, though the third
	// direct run was slow.
	r := lookupRow{n: 2000, direct: samples{20, 25, 90}, forwarded: samples{50, 55, 100}}
	want := "2000\t3\t25.0\t55.0\t2.20x\t30.0\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(lookupHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestNetFindingsAndListed(t *testing.T) {
	r := &verdict.Result{
		Violations:        verdict.Violations{{Syscall: "uname", Count: 1}},
		NetworkViolations: []verdict.NetworkViolation{{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetConnect, Dest: "127.0.0.2:9", Count: 3}}},
	}
	if got := netListed(r); got != 0 {
		t.Errorf("netListed without an observation = %d", got)
	}
	r.Observed = &baseline.Observation{}
	lo := baseline.Destination{Addr: netip.MustParseAddr("127.0.0.1"), Port: 8080}
	r.Observed.AddNetwork(baseline.NetConnect, lo, "/usr/bin/python3", 2)
	r.Observed.AddNetwork(baseline.NetConnect, lo, "/usr/bin/curl", 1)
	r.Observed.AddNetwork(baseline.NetBind, baseline.Destination{Addr: netip.MustParseAddr("127.0.0.1")}, "/usr/bin/python3", 1)
	into := map[string]uint64{}
	addNetFindings(into, r)
	if got := countList(into); got != "connect 127.0.0.2:9:3,uname:1" {
		t.Errorf("findings %s", got)
	}
	if got := netListed(r); got != 3 {
		t.Errorf("netListed = %d, want 3", got)
	}
}

func TestNetworkWorkloads(t *testing.T) {
	srv := &loopbackServers{url: "http://127.0.0.1:8000/", tcp: netip.MustParseAddrPort("127.0.0.1:9000"), dnsAddr: "127.0.0.1:5300"}
	w := workloads{
		python:  workload{name: "python agent read-only", command: []string{"py", "-I", "-B", "agent.py", "--workspace", "ws", "--scenario", "read-only"}},
		mcp:     workload{name: "mcp-filesystem 1000 calls", command: []string{"node", "index.js", "ws"}, mcpCalls: 1000},
		getppid: workload{command: []string{"/tmp/micro", "getppid", "1000000"}, env: []string{"HOME=ws"}},
	}
	python, mcp, connects := networkWorkloads(w, srv)
	if want := []string{"py", "-I", "-B", "agent.py", "--workspace", "ws", "--scenario", "network", "--url", srv.url}; !slices.Equal(python.command, want) {
		t.Errorf("python agent: %q, want %q", python.command, want)
	}
	if w.python.command[7] != "read-only" {
		t.Errorf("networkWorkloads changed the read-only agent's command: %q", w.python.command)
	}
	if mcp.mcpCalls != 200 || mcp.name != "mcp-filesystem 200 calls" {
		t.Errorf("mcp: %d calls, named %q", mcp.mcpCalls, mcp.name)
	}
	if want := []string{"/tmp/micro", "connect", "127.0.0.1", "9000", "2000"}; !slices.Equal(connects.command, want) || !connects.perCall || iterations(connects) != netConnects {
		t.Errorf("connect loop: %q (per call %v)", connects.command, connects.perCall)
	}
	for _, wl := range []workload{python, mcp, connects} {
		if len(wl.opts) != 1 {
			t.Errorf("%s: %d options, want the loopback resolver", wl.name, len(wl.opts))
		}
	}
}

// TestLoopbackServers starts the section's servers and uses each as the
// section does: the page, the connect loop (the real micro binary), and
// lookups straight and through a forwarder.
func TestLoopbackServers(t *testing.T) {
	srv, err := startLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "the bench's page\n" {
		t.Errorf("page %q", body)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Log("no gcc: the connect loop is not run")
	} else {
		micro := filepath.Join(t.TempDir(), "micro")
		if out, err := exec.Command("gcc", "-O2", "-o", micro, filepath.Join("testdata", "micro.c")).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v: %s", err, out)
		}
		loop := workload{name: "connects", command: []string{micro, "connect", "127.0.0.1", strconv.Itoa(int(srv.tcp.Port())), "400"}, perCall: true}
		m, err := loop.runPlain(context.Background())
		if err != nil || m.perCall <= 0 {
			t.Errorf("connect loop: %v, %v ns per connect", err, m.perCall)
		}
	}
	if us, err := lookups(context.Background(), srv.dnsAddr, 20); err != nil || us <= 0 {
		t.Errorf("lookups: %v us, %v", us, err)
	}
	c := &dns.Client{}
	other, _, err := c.Exchange(new(dns.Msg).SetQuestion("other.test.", dns.TypeA), srv.dnsAddr)
	if err != nil || other.Rcode != dns.RcodeNameError || answersLoopback(other) {
		t.Errorf("other.test: %v, %v", other, err)
	}
	if err := lookupCost(context.Background(), config{reps: 2}, srv.dnsAddr, 10); err != nil {
		t.Errorf("lookupCost: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestOnOffObserved(t *testing.T) {
	for _, obs := range []onOff{filesOnOff, networkOnOff} {
		on := &verdict.Result{FilesObserved: obs.name == "files", NetworkObserved: obs.name == "network"}
		if !obs.observed(on) || obs.observed(&verdict.Result{}) {
			t.Errorf("%s: observed(%+v) = %v, observed(nothing) = %v", obs.name, on, obs.observed(on), obs.observed(&verdict.Result{}))
		}
		if obs.without() == nil {
			t.Errorf("%s: no option to switch it off", obs.name)
		}
	}
}
