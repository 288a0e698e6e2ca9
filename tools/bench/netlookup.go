package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/miekg/dns"

	"github.com/sysgate/sysgate/internal/dnsrec"
)

// lookupRow is what the run's recording forwarder adds to a lookup: n
// lookups of benchName over one UDP socket straight to the bench's DNS
// server, and the same through a forwarder (internal/dnsrec) to it; µs
// per lookup.
type lookupRow struct {
	n                 int
	direct, forwarded samples
}

const lookupHeader = "lookups a run\truns each way\tdirect us/lookup\tthrough the forwarder us/lookup\tforwarder/direct\tadded us/lookup\t"

// cells is the row for lookupHeader; the ratio and the difference are
// paired.
func (r lookupRow) cells() string {
	return fmt.Sprintf("%d\t%d\t%.1f\t%.1f\t%s\t%.1f\t", r.n, len(r.direct), r.direct.median(), r.forwarded.median(),
		pairedRatio(r.forwarded, r.direct), pairedDiff(r.forwarded, r.direct))
}

// lookupCost measures the forwarder a run starts, here on a high port of
// 127.0.0.1 (a run's is on port 53 of 127.53.0.x) and forwarding to
// upstream: n lookups straight to upstream and n through the forwarder,
// back to back in alternating order in each repeat.
func lookupCost(ctx context.Context, cfg config, upstream string, n int) error {
	fwd, err := dnsrec.StartAt(netip.MustParseAddrPort("127.0.0.1:0"), []string{upstream})
	if err != nil {
		return err
	}
	defer fwd.Close()
	fmt.Printf("\nthe recording forwarder's added latency per lookup (median of %d; %d lookups of %s a run over one UDP socket, straight to the bench's DNS server on loopback and through dnsrec.StartAt's forwarder to it, back to back in alternating order; ratio and difference paired)\n",
		cfg.reps, n, benchName)
	row := lookupRow{n: n}
	for i := 0; i < cfg.reps; i++ {
		err := backToBack(i, func(through bool) error {
			at := upstream
			if through {
				at = fwd.Addr().String()
			}
			us, err := lookups(ctx, at, n)
			if err != nil {
				return err
			}
			if through {
				row.forwarded = append(row.forwarded, us)
			} else {
				row.direct = append(row.direct, us)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// Every forwarded lookup is one the forwarder recorded: one that was
	// not would mean the row measured some other path.
	if got, want := len(fwd.Queries())+fwd.Dropped(), n*cfg.reps; got != want {
		return fmt.Errorf("the forwarder recorded %d lookups, want %d", got, want)
	}
	tw := table()
	fmt.Fprintln(tw, lookupHeader)
	fmt.Fprintln(tw, row.cells())
	return tw.Flush()
}

// lookups asks server for benchName n times over one UDP socket and
// returns the µs per lookup; an answer other than 127.0.0.1 is an error.
func lookups(ctx context.Context, server string, n int) (float64, error) {
	c := &dns.Client{Timeout: 2 * time.Second}
	conn, err := c.DialContext(ctx, server)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	q := new(dns.Msg).SetQuestion(benchName, dns.TypeA)
	start := time.Now()
	for range n {
		resp, _, err := c.ExchangeWithConnContext(ctx, q, conn)
		if err != nil {
			return 0, fmt.Errorf("lookup %s at %s: %w", benchName, server, err)
		}
		if !answersLoopback(resp) {
			return 0, fmt.Errorf("lookup %s at %s: answer %v, want 127.0.0.1", benchName, server, resp.Answer)
		}
	}
	return time.Since(start).Seconds() * 1e6 / float64(n), nil
}

// answersLoopback says whether resp is the one A record 127.0.0.1.
func answersLoopback(resp *dns.Msg) bool {
	if len(resp.Answer) != 1 {
		return false
	}
	a, ok := resp.Answer[0].(*dns.A)
	return ok && a.A.Equal(net.IPv4(127, 0, 0, 1))
}
