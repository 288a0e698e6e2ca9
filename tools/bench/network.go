package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// The network section's loops: TCP connects to the bench's listener per
// run of the connect loop, and lookups per run of the forwarder's.
const (
	netConnects = 2000
	netLookups  = 2000
)

const (
	netHeader      = "workload\tbackend\tmode\tbare ms\tnetwork ms\tno network ms\tnetwork/no network\ttarget\tnetwork/bare\tno network/bare\tnetwork - no network ms\tsysgate CPU: network ms\tno network ms\tdestinations listed\toutside the baseline (all reps)\t"
	netMicroHeader = "workload\tunit\tbackend\truns each way\tbare\tcheck, network\tno network\tnetwork/no network\tnetwork/bare\tno network/bare\tloop: network - no network ns\twhole run: network - no network ns/iter\tsysgate CPU: network ns/iter\tno network ns/iter\toutside the baseline (all reps)\t"
)

var networkOnOff = onOff{name: "network", header: netHeader, microHeader: netMicroHeader, without: harness.WithoutNetwork,
	observed: func(r *verdict.Result) bool { return r.NetworkObserved }, findings: addNetFindings, listed: netListed}

// networkWorkloads are the section's runs against the bench's loopback
// servers: the Python agent's network scenario (it fetches srv's page),
// the files section's MCP server (a fifth of its calls; it connects
// nowhere, so its row is what the socket rules cost a run that does not
// use them), and the connect loop. Every run's recording forwarder
// forwards to the bench's DNS server.
func networkWorkloads(w workloads, srv *loopbackServers) (python, mcp, connects workload) {
	resolver := []harness.Option{harness.WithResolvers(srv.dnsAddr)}
	python = w.python
	python.name = "python agent network"
	python.command = append(append([]string{}, w.python.command[:len(w.python.command)-2]...), "--scenario", "network", "--url", srv.url)
	python.opts = resolver
	mcp = w.mcp
	mcp.mcpCalls = max(1, w.mcp.mcpCalls/5)
	mcp.name = fmt.Sprintf("mcp-filesystem %d calls", mcp.mcpCalls)
	mcp.opts = resolver
	micro := w.getppid.command[0]
	n := strconv.Itoa(netConnects)
	connects = workload{name: fmt.Sprintf("connect(127.0.0.1) x%s", n), perCall: true, per: "connect", env: w.getppid.env, opts: resolver,
		command: []string{micro, "connect", srv.tcp.Addr().String(), strconv.Itoa(int(srv.tcp.Port())), n}}
	return python, mcp, connects
}

// networkCost: what observing the network (on by default) costs. The
// Python agent's network scenario and the MCP server in check and record
// mode on each backend, the network on and off (WithoutNetwork) back to
// back; the connect loop in check mode the same way; then what the run's
// recording forwarder adds to a lookup. Everything runs on 127.0.0.1.
func networkCost(ctx context.Context, cfg config, w workloads, bases *baselines) error {
	srv, err := startLoopback()
	if err != nil {
		return fmt.Errorf("network: the bench's loopback servers: %w", err)
	}
	defer srv.Close()
	python, mcp, connects := networkWorkloads(w, srv)
	for _, wl := range []workload{python, mcp, connects} {
		if _, err := bases.of(ctx, wl); err != nil {
			return err
		}
	}
	fmt.Printf("\n== network: the cost of observing it (issue 36; median of %d; network/no network, network/bare, no network/bare and network - no network: paired, the median of each repeat's own; the network and no-network runs of a repeat back to back in alternating order; sysgate CPU: this process's user+sys during the run, the bench's loopback servers included; destinations listed: (call, destination, program) triples in the network run's observation, all of them in record, those outside the baseline in check)\n", cfg.reps)
	if err := sessionsOnOff(ctx, cfg, networkOnOff, []workload{python, mcp}, bases); err != nil {
		return err
	}
	fmt.Printf("\nthe connect loop in check mode with the network observed and without (median of %d runs each way; each iteration socket, connect to the bench's listener on 127.0.0.1, SO_LINGER 0, close; ratios and differences paired; loop: the fastest chunk's ns per connect; whole run: harness.Run's wall time per connect; sysgate CPU: this process's user+sys during the run per connect, the listener's accepts included)\n", cfg.reps)
	if err := microOnOff(ctx, cfg, networkOnOff, []workload{connects}, bases); err != nil {
		return err
	}
	return lookupCost(ctx, cfg, srv.dnsAddr, netLookups)
}

// addNetFindings counts what r found outside its baseline: calls and
// programs as addFindings does, destinations as "CALL DEST".
func addNetFindings(into map[string]uint64, r *verdict.Result) {
	addFindings(into, r)
	for _, v := range r.NetworkViolations {
		into[v.Op.String()+" "+v.Dest] += v.Count
	}
}

// netListed is the (call, destination, program) triples in r's
// observation.
func netListed(r *verdict.Result) int {
	if r.Observed == nil {
		return 0
	}
	n := 0
	for _, byDest := range r.Observed.Network {
		for _, byProgram := range byDest {
			n += len(byProgram)
		}
	}
	return n
}
