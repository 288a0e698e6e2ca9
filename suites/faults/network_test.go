package faults_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/miekg/dns"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

// Issue 36: an agent whose baseline holds socket, connect and sendto,
// because it talks to one server, goes somewhere else with the same calls
// (testdata/netconnect.c). Without network observation every one of these
// runs was CLEAN. Each spec records the mode against the destination the
// baseline allows, writes the baseline's network section naming exactly
// the allowed destinations, and checks the mode against another one, as
// root on the audit backend and as nobody on notify; then once more with
// --no-network, which must be CLEAN (so the spec can fail).
//
// Every destination is a server the spec runs on 127.0.0.0/8 (or on
// 169.254.169.254, put on lo for the metadata spec): nothing leaves the
// machine.

// netWorld is the allowed side of an agent's network: what its baseline
// names.
type netWorld struct {
	// tcp is 127.0.0.1:P, the allowed connect; twin is 127.0.0.2:P, the
	// same port on another address, the flip's forbidden destination.
	tcp, twin *streamServer
	udp       *datagramServer // 127.0.0.1:U, the allowed send
	unix      *streamServer   // the allowed Unix socket
	dir       string          // where the Unix sockets are
}

func newNetWorld(s fileScene) *netWorld {
	GinkgoHelper()
	w := &netWorld{dir: filepath.Join(filepath.Dir(s.work), "sock")}
	Expect(os.Mkdir(w.dir, 0o755)).To(Succeed())
	w.tcp, w.twin = serveTwins()
	w.udp = serveDatagrams("127.0.0.1:0", echo)
	w.unix = serveStream("unix", filepath.Join(w.dir, "allowed.sock"))
	return w
}

// gate replaces the network section of the recorded baseline with
// entries naming exactly the allowed destinations (what record writes
// for them is its own business: 127.0.0.1:{port} would allow the same
// host on any port).
func (w *netWorld) gate(path string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	doc, err := baseline.ParseDocument(path, data)
	Expect(err).NotTo(HaveOccurred(), "the recorded baseline")
	doc.HasNetwork = true
	doc.Network = []baseline.NetworkEntry{
		{Op: baseline.NetConnect, Pattern: w.tcp.dest()},
		{Op: baseline.NetConnect, Pattern: w.unix.dest()},
		{Op: baseline.NetSend, Pattern: w.udp.dest()},
	}
	out := doc.Format()
	_, err = baseline.ParseDocument(path, out)
	Expect(err).NotTo(HaveOccurred(), "the gated baseline:\n%s", out)
	Expect(os.WriteFile(path, out, 0o644)).To(Succeed())
}

// netAttack is one way out: the mode of netconnect, its benign
// destination, the one it attacks, and how often the attacked server
// was reached.
type netAttack struct {
	mode            string
	allowed, target string
	reached         func() int
}

var _ = Describe("an agent that reaches a destination outside its network baseline", RequiresAudit, NamesBackend, Escape, labels.Network, func() {
	BeforeEach(func() { requireAudit() })

	DescribeTable("fails the gate with only the destination named",
		func(ctx SpecContext, backend string, nobody bool, op baseline.NetOp, class risk.Class, attack func(*netWorld) netAttack) {
			s := newFileScene(nobody)
			w := newNetWorld(s)
			a := attack(w)
			rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.NetConnect, a.mode, a.allowed)...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			w.gate(s.base)

			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.NetConnect, a.mode, a.target)...)
			Eventually(a.reached).Should(BeNumerically(">=", 1), "the attack never reached %s: the spec proves nothing: %s", a.target, o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s %s is outside the baseline: %s", op, a.target, o)
			r := o.Result()
			Expect(r.Violations).To(BeEmpty(), "only the destination is new: %s", o)
			Expect(r.ProgramViolations).To(BeEmpty(), "only the destination is new: %s", o)
			Expect(r.FileViolations).To(BeEmpty(), "only the destination is new: %s", o)
			want := And(HaveField("Op", op), HaveField("Dest", a.target), HaveField("Program", bin.NetConnect))
			if class.Risky() {
				want = And(want, HaveField("Risk", class), HaveField("Level", risk.High))
			}
			Expect(r.NetworkViolations).To(HaveExactElements(want), "%s", o)

			o = s.run(ctx, append(append(chk, "--no-network"), "--", bin.NetConnect, a.mode, a.target)...)
			Expect(o.Code).To(Equal(cli.ExitOK), "--no-network: %s", o)
			Expect(o.Result().NetworkViolations).To(BeEmpty(), "--no-network: %s", o)
		},
		netAttacks("audit", false),
		netAttacks("notify", true),
	)

	DescribeTable("an address flipped by a second thread is never clean when the forbidden server was reached",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			w := newNetWorld(s)
			rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.NetConnect, "flip", w.tcp.dest(), w.tcp.dest())...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			w.gate(s.base)

			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.NetConnect, "flip", w.tcp.dest(), w.twin.dest())...)
			hits := w.twin.acceptedBefore()
			Expect(hits).To(BeNumerically(">", 0), "2000 flips never reached %s: the spec proves nothing: %s", w.twin.dest(), o)
			Expect(o.Code).NotTo(Equal(cli.ExitOK), "%s accepted %d connections and the run was clean: %s", w.twin.dest(), hits, o)
			if o.Code == cli.ExitViolation {
				// Every connection that reached the forbidden server
				// counted, and nothing else: the address is flipped with
				// one 4-byte store, never half of one and half of the other.
				Expect(o.Result().NetworkViolations).To(HaveExactElements(And(HaveField("Op", baseline.NetConnect),
					HaveField("Dest", w.twin.dest()), HaveField("Count", BeNumerically("==", hits)))), "%s", o)
			}

			o = s.run(ctx, append(append(chk, "--no-network"), "--", bin.NetConnect, "flip", w.tcp.dest(), w.twin.dest())...)
			Expect(o.Code).To(Equal(cli.ExitOK), "--no-network: %s", o)
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})

func who(nobody bool) string {
	if nobody {
		return "nobody"
	}
	return "root"
}

// netAttacks are the attacks on one backend.
func netAttacks(backend string, nobody bool) []TableEntry {
	connect := func(to func(*netWorld) *streamServer) func(*netWorld) netAttack {
		return func(w *netWorld) netAttack {
			srv := to(w)
			allowed := w.tcp
			if strings.HasPrefix(srv.dest(), "unix:") {
				allowed = w.unix
			}
			return netAttack{mode: "connect", allowed: allowed.dest(), target: srv.dest(), reached: srv.count}
		}
	}
	send := func(mode string, to func(*netWorld) *datagramServer) func(*netWorld) netAttack {
		return func(w *netWorld) netAttack {
			srv := to(w)
			return netAttack{mode: mode, allowed: w.udp.dest(), target: srv.dest(), reached: srv.count}
		}
	}
	tcp := func(addr string) func(*netWorld) *streamServer {
		return func(*netWorld) *streamServer { return serveStream("tcp", addr) }
	}
	c, snd := baseline.NetConnect, baseline.NetSend
	return []TableEntry{
		Entry("a new destination: "+backend+" as "+who(nobody), backend, nobody, c, risk.None, connect(tcp("127.0.0.2:0"))),
		Entry("the same host on a new port: "+backend+" as "+who(nobody), backend, nobody, c, risk.None, connect(tcp("127.0.0.1:0"))),
		// No lookup of the run gave 127.0.0.3: only an entry naming the
		// address (or its class) could allow it.
		Entry("a direct IP no lookup produced: "+backend+" as "+who(nobody), backend, nobody, c, risk.None, connect(tcp("127.0.0.3:0"))),
		Entry("the metadata address: "+backend+" as "+who(nobody), MachineAddress, backend, nobody, c, risk.CloudMetadata,
			connect(func(*netWorld) *streamServer {
				metadataOnLoopback()
				return serveStream("tcp", "169.254.169.254:80")
			})),
		Entry("a UDP sendto without connect: "+backend+" as "+who(nobody), backend, nobody, snd, risk.None,
			send("send", func(*netWorld) *datagramServer { return serveDatagrams("127.0.0.2:0", echo) })),
		Entry("a Unix socket outside the baseline: "+backend+" as "+who(nobody), backend, nobody, c, risk.None,
			connect(func(w *netWorld) *streamServer { return serveStream("unix", filepath.Join(w.dir, "other.sock")) })),
		// The query goes past the run's resolv.conf and its recording
		// forwarder, carrying its data in the name.
		Entry("a DNS query to a resolver of its own: "+backend+" as "+who(nobody), backend, nobody, snd, risk.None,
			send("dns", func(*netWorld) *datagramServer { return serveOwnResolver() })),
	}
}

// metadataAddr is the cloud metadata service's address. The spec puts it
// on lo, and serves it, so that the agent's connect stays on this machine:
// without the address a connect to it would leave by the default route,
// since the audit backend lets the agent's own connect through and the
// notify backend makes it for the agent. While the spec runs, this
// machine's own requests to its metadata service (if it has one) reach
// the spec's server instead: hence Serial (MachineAddress).
const metadataAddr = "169.254.169.254"

func metadataOnLoopback() {
	GinkgoHelper()
	out, err := exec.Command("ip", "addr", "add", metadataAddr+"/32", "dev", "lo").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "ip addr add %s/32 dev lo: %s(a leftover of an interrupted run? remove it with ip addr del %s/32 dev lo)", metadataAddr, out, metadataAddr)
	DeferCleanup(func() {
		out, err := exec.Command("ip", "addr", "del", metadataAddr+"/32", "dev", "lo").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "ip addr del %s/32 dev lo: %s", metadataAddr, out)
	})
}

// streamServer accepts and closes every connection to a TCP address or a
// Unix socket, counting them, and notes each TCP peer.
type streamServer struct {
	ln       net.Listener
	mu       sync.Mutex
	accepted int
	peers    map[string]bool
}

func listenStream(network, address string) (*streamServer, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	s := &streamServer{ln: ln, peers: map[string]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.accepted++
			s.peers[c.RemoteAddr().String()] = true
			s.mu.Unlock()
			c.Close()
		}
	}()
	DeferCleanup(ln.Close)
	return s, nil
}

// serveStream listens on a loopback address (port 0: any) or a Unix
// socket that nobody may connect to.
func serveStream(network, address string) *streamServer {
	GinkgoHelper()
	s, err := listenStream(network, address)
	Expect(err).NotTo(HaveOccurred(), "listen %s %s", network, address)
	if network == "unix" {
		Expect(os.Chmod(address, 0o777)).To(Succeed())
	}
	return s
}

// serveTwins listens on 127.0.0.1:P and 127.0.0.2:P, one port on two
// addresses (tried a few times: another process may hold P on the
// second).
func serveTwins() (*streamServer, *streamServer) {
	GinkgoHelper()
	for try := 0; try < 10; try++ {
		a := serveStream("tcp", "127.0.0.1:0")
		b, err := listenStream("tcp", "127.0.0.2:"+strconv.Itoa(a.ln.Addr().(*net.TCPAddr).Port))
		if err == nil {
			return a, b
		}
		a.ln.Close()
	}
	Fail("no port free on both 127.0.0.1 and 127.0.0.2 in 10 tries")
	return nil, nil
}

// dest is the server's address as netconnect takes it and a report
// names it: "127.0.0.2:41234", "unix:/path".
func (s *streamServer) dest() string {
	if u, ok := s.ln.Addr().(*net.UnixAddr); ok {
		return "unix:" + u.Name
	}
	return s.ln.Addr().String()
}

func (s *streamServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// acceptedBefore is how many connections a TCP server accepted before
// the spec's own one. The kernel queues completed connections in order,
// so once the server accepted the spec's, it accepted every one the
// agent completed before it. The spec's connection comes from
// 127.0.0.254, an address no agent of these specs uses: from 127.0.0.1
// the kernel may give it the port of an agent connection in TIME_WAIT
// (tcp_tw_reuse=2 reuses those on loopback), whose peer the server has
// already noted, and the count was then read one short (CI saw 1622
// accepted for 1623 reported).
func (s *streamServer) acceptedBefore() int {
	GinkgoHelper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 254)}}
	c, err := d.Dial("tcp", s.dest())
	Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	me := c.LocalAddr().String()
	Eventually(func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.peers[me]
	}).Should(BeTrue(), "the server never accepted the spec's connection")
	return s.count() - 1
}

// datagramServer answers every datagram on a loopback UDP address that
// reply answers (nil: not one the spec waits for), and counts those.
type datagramServer struct {
	conn *net.UDPConn
	mu   sync.Mutex
	n    int
}

func listenDatagrams(address string, reply func([]byte) []byte) (*datagramServer, error) {
	addr, err := net.ResolveUDPAddr("udp", address)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", addr)
	if err != nil {
		return nil, err
	}
	DeferCleanup(conn.Close)
	s := &datagramServer{conn: conn}
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := conn.ReadFromUDP(buf)
			if err != nil {
				return
			}
			answer := reply(buf[:n])
			if answer == nil {
				continue
			}
			s.mu.Lock()
			s.n++
			s.mu.Unlock()
			_, _ = conn.WriteToUDP(answer, from)
		}
	}()
	return s, nil
}

func serveDatagrams(address string, reply func([]byte) []byte) *datagramServer {
	GinkgoHelper()
	s, err := listenDatagrams(address, reply)
	Expect(err).NotTo(HaveOccurred(), "listen udp %s", address)
	return s
}

func (s *datagramServer) dest() string { return s.conn.LocalAddr().String() }

func (s *datagramServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func echo(msg []byte) []byte { return append([]byte(nil), msg...) }

// exfilName is the name netconnect's dns mode looks up: "secret" in
// base64 under a domain the agent's owner serves.
const exfilName = "c2VjcmV0.exfil.example."

// serveOwnResolver is the agent's own DNS server, on port 53 of the
// first free address from 127.0.0.9 on (the same spec on another Ginkgo
// process runs its own). It answers only a query for exfilName (with
// 127.0.0.1), so nothing else the agent sent passes for the query.
func serveOwnResolver() *datagramServer {
	GinkgoHelper()
	answer := func(msg []byte) []byte {
		var q dns.Msg
		if q.Unpack(msg) != nil || len(q.Question) != 1 || q.Question[0].Name != exfilName {
			return nil
		}
		r := new(dns.Msg)
		r.SetReply(&q)
		r.Answer = append(r.Answer, &dns.A{Hdr: dns.RR_Header{Name: exfilName, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(127, 0, 0, 1)})
		out, err := r.Pack()
		if err != nil {
			return nil
		}
		return out
	}
	var err error
	for host := 9; host < 40; host++ {
		var s *datagramServer
		if s, err = listenDatagrams("127.0.0."+strconv.Itoa(host)+":53", answer); err == nil {
			return s
		}
	}
	Fail("no free port 53 on 127.0.0.9 to 127.0.0.39: " + err.Error())
	return nil
}
