package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"github.com/miekg/dns"

	"github.com/sysgate/sysgate/internal/dnsrec"
)

// benchName is the name the bench's DNS server answers, with a loopback
// address: nothing a lookup starts ever leaves the machine.
const benchName = "bench.test."

// loopbackServers are what the network section's workloads talk to, all
// on 127.0.0.1 and started by the bench: an HTTP server for the Python
// agent's fetch, a TCP listener for the connect loop (it accepts and
// closes), and a DNS server answering benchName, the runs' resolver and
// the forwarder's upstream.
type loopbackServers struct {
	url     string         // the HTTP server's one page
	tcp     netip.AddrPort // the connect loop's listener
	dnsAddr string         // "127.0.0.1:port", UDP
	closers []func() error
	accepts sync.WaitGroup
}

// startLoopback starts the three servers; Close stops them. Each socket
// is bound before its server starts, so a client's first packet waits in
// the socket for it.
func startLoopback() (s *loopbackServers, err error) {
	s = &loopbackServers{}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	web, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return s, err
	}
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("the bench's page\n"))
	})
	srv := &http.Server{Handler: page}
	s.closers = append(s.closers, srv.Close)
	go func() { _ = srv.Serve(web) }()
	s.url = "http://" + web.Addr().String() + "/"

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return s, err
	}
	s.closers = append(s.closers, ln.Close)
	s.tcp = ln.Addr().(*net.TCPAddr).AddrPort()
	s.accepts.Add(1)
	go s.acceptAndClose(ln)

	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return s, err
	}
	s.dnsAddr = pc.LocalAddr().String()
	names := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(answerBenchName)}
	if err := dnsrec.Activate(names); err != nil {
		_ = pc.Close()
		return s, fmt.Errorf("the bench's DNS server: %w", err)
	}
	s.closers = append(s.closers, names.Shutdown)
	return s, nil
}

// acceptAndClose takes each connection off ln's queue and closes it, so
// a loop of connects never finds the queue full (a dropped SYN is retried
// a second later, and the loop would measure that).
func (s *loopbackServers) acceptAndClose(ln net.Listener) {
	defer s.accepts.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a connection reset before it was taken
		}
		_ = c.Close()
	}
}

// Close stops every server and waits for the accepting goroutine.
func (s *loopbackServers) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	s.accepts.Wait()
	return errors.Join(errs...)
}

// answerBenchName answers A benchName with 127.0.0.1, anything else with
// NXDOMAIN.
func answerBenchName(w dns.ResponseWriter, req *dns.Msg) {
	resp := new(dns.Msg).SetReply(req)
	if len(req.Question) == 1 && req.Question[0].Qtype == dns.TypeA && dns.CanonicalName(req.Question[0].Name) == benchName {
		resp.Answer = append(resp.Answer, &dns.A{
			Hdr: dns.RR_Header{Name: req.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60},
			A:   net.IPv4(127, 0, 0, 1),
		})
	} else {
		resp.SetRcode(req, dns.RcodeNameError)
	}
	_ = w.WriteMsg(resp)
}
