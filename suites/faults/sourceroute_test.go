package faults_test

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

// Issue 43, item 12: a root agent allowed to send to 127.0.0.1:P sets a
// loose source route through 127.0.0.2 (setsockopt IP_OPTIONS, or an
// IP_RETOPTS control message on sendmsg) and sends to 127.0.0.1:P: the
// call names the allowed address, the packet's IP header names
// 127.0.0.2, the first hop, and goes there. Recorded doing the same
// calls with an empty option list (testdata/netconnect.c, route and
// retopts). Setting a source route takes CAP_NET_RAW, which sysgate
// takes from a root agent: the kernel refuses the option and nothing
// reaches 127.0.0.2. With --keep-cap NET_RAW the packets go (that is the
// spec failing first: the verdict is clean and only the weakening is
// named), and the report must say what the kept capability lets through.
//
// What the spec observes is the packet itself: a packet socket on lo
// that keeps only IPv4 packets addressed to 127.0.0.2. (The receiving
// side drops a source-routed packet here, net.ipv4.conf.all.
// accept_source_route=0, so no socket on 127.0.0.2 would see it; on a
// real interface it has left the machine by then.)
var _ = Describe("a root agent that source-routes past the address in its call", RequiresAudit, NamesBackend, Escape, labels.Network, func() {
	BeforeEach(func() { requireAudit() })

	for _, backend := range []string{"audit", "notify"} {
		for _, mode := range []string{"route", "retopts"} {
			It("sends nothing to the first hop on "+backend+" ("+mode+"), and names the kept capability", func(ctx SpecContext) {
				s := newFileScene(false)
				w := newNetWorld(s)
				tap := tapPacketsTo("127.0.0.2")
				port := w.udp.conn.LocalAddr().(*net.UDPAddr).Port
				rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags(backend)...)
				o := s.run(ctx, append(rec, "--", bin.NetConnect, mode, w.udp.dest())...)
				Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
				Expect(o.Output()).To(ContainSubstring("sent 20\n"), "the benign run sends: %s", o)
				w.gate(s.base)

				for _, verb := range []string{"check", "enforce"} {
					gate := append([]string{verb, "--format", "json", "-b", s.base}, s.flags(backend)...)
					o = s.run(ctx, append(gate, "--", bin.NetConnect, mode, w.udp.dest(), "127.0.0.2")...)
					Expect(o.Output()).To(ContainSubstring("Operation not permitted"), "%s: the kernel refuses a source route without CAP_NET_RAW: %s", verb, o)
					Expect(tap.seen(port)).To(BeZero(), "%s: a packet with the secret reached 127.0.0.2: %s", verb, o)

					kept := append(append([]string{}, gate...), "--keep-cap", "NET_RAW")
					o = s.run(ctx, append(kept, "--", bin.NetConnect, mode, w.udp.dest(), "127.0.0.2")...)
					Expect(o.Output()).To(ContainSubstring("sent 20\n"), "%s --keep-cap NET_RAW: %s", verb, o)
					Expect(tap.seen(port)).To(BeNumerically(">=", 1), "%s --keep-cap NET_RAW: the source-routed packet never left for 127.0.0.2: the spec proves nothing: %s", verb, o)
					Expect(o.Result().KeptCapabilities).To(ContainElement("CAP_NET_RAW"), "%s", o)
					text := s.run(ctx, append(append(append([]string{verb, "-b", s.base}, s.flags(backend)...), "--keep-cap", "NET_RAW", "--"),
						bin.NetConnect, mode, w.udp.dest(), "127.0.0.2")...)
					Expect(text.Output()).To(ContainSubstring("with CAP_NET_RAW the agent can set a source route"), "%s: the report says what the kept CAP_NET_RAW lets through: %s", verb, text)
					tap.reset(port)
				}
			})
		}
	}
})

// packetTap counts the IPv4 packets on lo addressed to one address that
// carry the route modes' secret, by UDP destination port: each spec's
// allowed server has a port of its own, so specs running in parallel do
// not count each other's packets.
type packetTap struct {
	file    *os.File
	to      net.IP
	mu      sync.Mutex
	secrets map[int]int
	markers map[string]bool
	next    atomic.Int64
}

// tapPacketsTo opens a packet socket on lo whose filter keeps only IPv4
// packets addressed to to. It sees a packet as lo transmits it, before
// the receiving side's checks.
func tapPacketsTo(to string) *packetTap {
	GinkgoHelper()
	t := &packetTap{to: net.ParseIP(to).To4(), secrets: map[int]int{}, markers: map[string]bool{}}
	lo, err := net.InterfaceByName("lo")
	Expect(err).NotTo(HaveOccurred())
	// Protocol 0 receives nothing until bind names one: the filter is in
	// place before the first packet.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	Expect(err).NotTo(HaveOccurred(), "packet socket")
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 1},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf0},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x40, SkipFalse: 3}, // not IPv4
		bpf.LoadAbsolute{Off: 16, Size: 4},                       // the destination
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: ip4(t.to), SkipFalse: 1},
		bpf.RetConstant{Val: 0xffff},
		bpf.RetConstant{Val: 0},
	})
	Expect(err).NotTo(HaveOccurred())
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	Expect(unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]})).To(Succeed())
	Expect(unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20)).To(Succeed())
	all := uint16(unix.ETH_P_ALL)
	Expect(unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: all<<8 | all>>8, Ifindex: lo.Index})).To(Succeed())
	t.file = os.NewFile(uintptr(fd), "packet tap")
	DeferCleanup(t.file.Close)
	go t.read()
	return t
}

func ip4(ip net.IP) uint32 {
	return uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3])
}

func (t *packetTap) read() {
	buf := make([]byte, 65536)
	for {
		n, err := t.file.Read(buf)
		if err != nil {
			return
		}
		p := buf[:n]
		t.mu.Lock()
		if ihl := int(p[0]&0x0f) * 4; len(p) >= ihl+4 && p[9] == unix.IPPROTO_UDP && bytes.Contains(p, []byte("sysgate-route-secret")) {
			t.secrets[int(p[ihl+2])<<8|int(p[ihl+3])]++
		}
		if i := bytes.Index(p, []byte("tap-marker-")); i >= 0 {
			t.markers[string(p[i:])] = true
		}
		t.mu.Unlock()
	}
}

// seen is how many packets with the secret lo carried to the tapped
// address so far, for the UDP port. lo hands a packet to a packet socket while the sender
// is still in its send call, in order; so once the tap has read a marker
// the spec sends now (a datagram with a source route, from the spec
// itself, which is root with CAP_NET_RAW), it has read every packet the
// agent sent before.
func (t *packetTap) seen(port int) int {
	GinkgoHelper()
	marker := "tap-marker-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(t.next.Add(1), 10)
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	Expect(err).NotTo(HaveOccurred())
	defer unix.Close(fd)
	opt := append(append([]byte{0x83, 7, 4}, t.to...), 0) // IPOPT_LSRR through t.to, IPOPT_END
	Expect(unix.SetsockoptString(fd, unix.IPPROTO_IP, unix.IP_OPTIONS, string(opt))).To(Succeed())
	Expect(unix.Sendto(fd, []byte(marker), 0, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}})).To(Succeed())
	Eventually(func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.markers[marker]
	}).Should(BeTrue(), "the tap never read the spec's own marker")
	var drops uint32
	raw, err := t.file.SyscallConn()
	Expect(err).NotTo(HaveOccurred())
	Expect(raw.Control(func(fd uintptr) {
		st, e := unix.GetsockoptTpacketStats(int(fd), unix.SOL_PACKET, unix.PACKET_STATISTICS)
		Expect(e).NotTo(HaveOccurred())
		drops = st.Drops
	})).To(Succeed())
	Expect(drops).To(BeZero(), "the tap dropped packets: its count would be short")
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.secrets[port]
}

func (t *packetTap) reset(port int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.secrets, port)
}
