package dnsrec

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

var (
	// ErrPort53 means no loopback address of the 127.53.0.0/24 range had
	// port 53 free to this process: without CAP_NET_BIND_SERVICE (or an
	// ip_unprivileged_port_start of 53 or lower) none ever will.
	ErrPort53 = errors.New("no loopback port 53 for the forwarder")
	// ErrNoUpstream means there is no resolver to forward to.
	ErrNoUpstream = errors.New("no upstream name server")
)

// upstreamTimeout bounds one exchange with one upstream; it is below the
// timeout ResolvConf gives the run's clients so they hear SERVFAIL from the
// forwarder rather than timing out on it.
const upstreamTimeout = 2 * time.Second

// Forwarder is a recording DNS forwarder listening on UDP and TCP at one
// loopback address.
type Forwarder struct {
	addr      netip.AddrPort
	upstreams []netip.AddrPort
	udp, tcp  *dns.Server
	rec       recorder

	mu       sync.Mutex
	closed   bool
	inFlight sync.WaitGroup
}

// Start runs a forwarder on port 53 of the first free address among
// 127.53.0.1 to 127.53.0.254, forwarding to upstreams (addresses, port 53
// unless given as "addr:port" or "[v6]:port"). It returns ErrPort53 when
// port 53 cannot be bound for want of privilege.
func Start(upstreams []string) (*Forwarder, error) {
	ups, err := parseUpstreams(upstreams)
	if err != nil {
		return nil, err
	}
	for i := 1; i < 255; i++ {
		at := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 53, 0, byte(i)}), 53)
		f, err := start(at, ups)
		if err == nil {
			return f, nil
		}
		if errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w (needs CAP_NET_BIND_SERVICE or net.ipv4.ip_unprivileged_port_start <= 53): %w", ErrPort53, err)
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("start dns forwarder: 127.53.0.1-254: %w (all in use)", ErrPort53)
}

// StartAt runs a forwarder at listen (port 0: a free port chosen by the
// kernel, the same for UDP and TCP). It is for tests and for a run whose
// supervisor delivers the agent's port-53 datagrams itself.
func StartAt(listen netip.AddrPort, upstreams []string) (*Forwarder, error) {
	ups, err := parseUpstreams(upstreams)
	if err != nil {
		return nil, err
	}
	return start(listen, ups)
}

// listenPair binds UDP and TCP on the same address and port. With port 0
// the kernel picks the UDP port, which TCP may find taken (a connection's
// local port): then both are tried again.
func listenPair(at netip.AddrPort) (*net.UDPConn, *net.TCPListener, error) {
	var err error
	for range 32 {
		var pc *net.UDPConn
		pc, err = net.ListenUDP("udp", net.UDPAddrFromAddrPort(at))
		if err != nil {
			return nil, nil, err
		}
		bound := pc.LocalAddr().(*net.UDPAddr).AddrPort()
		var ln *net.TCPListener
		ln, err = net.ListenTCP("tcp", net.TCPAddrFromAddrPort(bound))
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		if at.Port() != 0 || !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	return nil, nil, err
}

func parseUpstreams(upstreams []string) ([]netip.AddrPort, error) {
	if len(upstreams) == 0 {
		return nil, fmt.Errorf("start dns forwarder: %w", ErrNoUpstream)
	}
	out := make([]netip.AddrPort, 0, len(upstreams))
	for _, s := range upstreams {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			addr, err2 := netip.ParseAddr(s)
			if err2 != nil {
				return nil, fmt.Errorf("start dns forwarder: upstream %q: %w", s, err)
			}
			ap = netip.AddrPortFrom(addr, 53)
		}
		out = append(out, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()))
	}
	return out, nil
}

func start(at netip.AddrPort, ups []netip.AddrPort) (*Forwarder, error) {
	for _, up := range ups {
		// Forwarding to ourselves would loop each query until it timed out.
		if up == at {
			return nil, fmt.Errorf("start dns forwarder on %s: upstream is the forwarder itself", at)
		}
	}
	pc, ln, err := listenPair(at)
	if err != nil {
		return nil, fmt.Errorf("start dns forwarder: %w", err)
	}
	bound := pc.LocalAddr().(*net.UDPAddr).AddrPort()
	f := &Forwarder{addr: netip.AddrPortFrom(bound.Addr().Unmap(), bound.Port()), upstreams: ups}
	f.rec.init()
	handler := dns.HandlerFunc(f.serve)
	f.udp = &dns.Server{PacketConn: pc, Handler: handler}
	f.tcp = &dns.Server{Listener: ln, Handler: handler}
	if err := Activate(f.udp); err != nil {
		ln.Close()
		return nil, fmt.Errorf("start dns forwarder: %w", err)
	}
	if err := Activate(f.tcp); err != nil {
		_ = f.udp.Shutdown()
		return nil, fmt.Errorf("start dns forwarder: %w", err)
	}
	return f, nil
}

// Activate serves srv (on its PacketConn or Listener) in the background
// and returns once it has started, or the error that kept it from
// starting: Shutdown before that point fails with "server not started"
// and would leave the socket open. The forwarder's servers start this
// way, and so do the test and bench DNS servers beside it.
func Activate(srv *dns.Server) error {
	started := make(chan struct{})
	done := make(chan error, 1)
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { done <- srv.ActivateAndServe() }()
	select {
	case <-started:
		return nil
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	}
}

// Addr is where the forwarder listens (UDP and TCP).
func (f *Forwarder) Addr() netip.AddrPort { return f.addr }

// Close stops serving, waits for the queries in flight (each bounded by
// the upstream timeout), and releases both ports. Records stay readable.
func (f *Forwarder) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.mu.Unlock()
	errU := f.udp.Shutdown()
	errT := f.tcp.Shutdown()
	f.inFlight.Wait()
	return errors.Join(errU, errT)
}

func (f *Forwarder) serve(w dns.ResponseWriter, req *dns.Msg) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.inFlight.Add(1)
	f.mu.Unlock()
	defer f.inFlight.Done()

	at := time.Now()
	client := addrPortOf(w.RemoteAddr())
	udp := w.LocalAddr().Network() == "udp"
	if len(req.Question) != 1 || req.Opcode != dns.OpcodeQuery {
		// Nothing a stub resolver sends; refusing it also keeps the
		// record one question per query.
		// Recorded before the answer, as every query is: a client that
		// has its answer finds it in Queries.
		f.rec.add(Query{Rcode: dns.RcodeToString[dns.RcodeFormatError], Client: client, At: at, Transport: w.LocalAddr().Network()}, nil)
		_ = w.WriteMsg(new(dns.Msg).SetRcode(req, dns.RcodeFormatError))
		return
	}
	resp, err := f.exchange(req)
	q := Query{Client: client, At: at, Transport: w.LocalAddr().Network()}
	q.Name, q.Type = questionOf(req)
	if err != nil {
		resp = new(dns.Msg).SetRcode(req, dns.RcodeServerFailure)
		q.Error = err.Error()
	}
	q.Rcode = rcodeName(resp.Rcode)
	q.Answers, q.CNAMEs = answersOf(resp)
	f.rec.add(q, resp)
	if udp {
		// The upstream answer may have come over TCP: trim it to what the
		// client can take over UDP and set TC, so it asks again over TCP.
		resp.Truncate(udpSize(req))
	}
	_ = w.WriteMsg(resp)
}

// exchange asks each upstream in turn, over UDP first and again over TCP
// when the answer came back truncated.
func (f *Forwarder) exchange(req *dns.Msg) (*dns.Msg, error) {
	var errs []error
	for _, up := range f.upstreams {
		c := &dns.Client{Net: "udp", Timeout: upstreamTimeout, UDPSize: dns.DefaultMsgSize}
		resp, _, err := c.Exchange(req, up.String())
		if err == nil && resp.Truncated {
			c.Net = "tcp"
			resp, _, err = c.Exchange(req, up.String())
		}
		if err == nil {
			return resp, nil
		}
		errs = append(errs, fmt.Errorf("upstream %s: %w", up, err))
	}
	return nil, errors.Join(errs...)
}

// rcodeName names an rcode; one the library has no name for (an upstream
// is free to send any of 4096) still reads as something, not "".
func rcodeName(rcode int) string {
	if name, ok := dns.RcodeToString[rcode]; ok {
		return name
	}
	return fmt.Sprintf("RCODE%d", rcode)
}

func udpSize(req *dns.Msg) int {
	if opt := req.IsEdns0(); opt != nil && int(opt.UDPSize()) > dns.MinMsgSize {
		return int(opt.UDPSize())
	}
	return dns.MinMsgSize
}

func addrPortOf(a net.Addr) netip.AddrPort {
	var ap netip.AddrPort
	switch a := a.(type) {
	case *net.UDPAddr:
		ap = a.AddrPort()
	case *net.TCPAddr:
		ap = a.AddrPort()
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}
