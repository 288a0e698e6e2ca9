package faults_test

import (
	"net"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

// Issue 36, the rest: sysgate without root, and a sendmmsg that names a
// destination per message.

var _ = Describe("an unprivileged sysgate on the notify backend", RequiresAudit, NamesBackend, Escape, labels.Network, func() {
	BeforeEach(func() { requireAudit() })

	// Nobody may not listen on port 53, so the run has no recording
	// forwarder: it still sees where the agent connected, by address,
	// and says why it has no names, in the result and in the report.
	It("gates a connect outside the baseline and says why it recorded no names", func(ctx SpecContext) {
		s := newFileScene(true)
		w := newNetWorld(s)
		other := serveStream("tcp", "127.0.0.2:0")
		rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags("notify")...)
		o := s.run(ctx, append(rec, "--", bin.NetConnect, "connect", w.tcp.dest())...)
		Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
		w.gate(s.base)

		chk := append([]string{"check", "-b", s.base}, s.flags("notify")...)
		o = s.run(ctx, append(append(chk, "--format", "json"), "--", bin.NetConnect, "connect", other.dest())...)
		Eventually(other.count).Should(BeNumerically(">=", 1), "the agent never reached %s: the spec proves nothing: %s", other.dest(), o)
		Expect(o.Code).To(Equal(cli.ExitViolation), "connect %s is outside the baseline: %s", other.dest(), o)
		r := o.Result()
		Expect(r.NetworkViolations).To(HaveExactElements(And(HaveField("Op", baseline.NetConnect), HaveField("Dest", other.dest()),
			HaveField("Program", bin.NetConnect))), "%s", o)
		Expect(r.NamesUnrecorded).To(ContainSubstring("port 53"), "nobody's run has no forwarder, and says why: %s", o)
		Expect(r.Names).To(BeEmpty(), "%s", o)

		o = s.run(ctx, append(chk, "--", bin.NetConnect, "connect", other.dest())...)
		Expect(o.Code).To(Equal(cli.ExitViolation), "text report: %s", o)
		Expect(o.Output()).To(ContainSubstring("names not recorded: "+r.NamesUnrecorded), "the report names the weakening")
	})
})

var _ = Describe("one sendmmsg with a destination per message", RequiresAudit, NamesBackend, Escape, labels.Network, func() {
	BeforeEach(func() { requireAudit() })

	// The forbidden datagram goes first and the allowed one last: the
	// audit backend's SOCKADDR record holds one address per call.
	var s fileScene
	var w *netWorld
	var forbidden, third *datagramServer
	var chk []string
	setup := func(ctx SpecContext, backend string, nobody bool) {
		s = newFileScene(nobody)
		w = newNetWorld(s)
		forbidden = serveDatagrams("127.0.0.2:0", echo)
		third = serveDatagrams("127.0.0.3:0", echo)
		rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags(backend)...)
		o := s.run(ctx, append(rec, "--", bin.NetConnect, "mmsg", w.udp.dest())...)
		Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
		w.gate(s.base)
		chk = append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
	}

	It("is inconclusive on the audit backend, never clean", func(ctx SpecContext) {
		setup(ctx, "audit", false)
		o := s.run(ctx, append(chk, "--", bin.NetConnect, "mmsg", forbidden.dest(), w.udp.dest())...)
		Eventually(forbidden.count).Should(BeNumerically(">=", 1), "the agent never reached %s: the spec proves nothing: %s", forbidden.dest(), o)
		Expect(o.Output()).To(ContainSubstring("sent 2\n"), "both messages went: %s", o)
		Expect(o.Code).To(Equal(cli.ExitInconclusive), "%s took a datagram the audit record does not name: %s", forbidden.dest(), o)
		r := o.Result()
		Expect(r.UnverifiedNetwork).To(ContainElement(ContainSubstring("sendmmsg")), "%s", o)
		Expect(r.NetworkViolations).To(BeEmpty(), "the kernel recorded the allowed address, the last: %s", o)

		o = s.run(ctx, append(append(chk, "--no-network"), "--", bin.NetConnect, "mmsg", forbidden.dest(), w.udp.dest())...)
		Expect(o.Code).To(Equal(cli.ExitOK), "--no-network: %s", o)
	})

	It("names every destination on the notify backend", func(ctx SpecContext) {
		setup(ctx, "notify", true)
		o := s.run(ctx, append(chk, "--", bin.NetConnect, "mmsg", forbidden.dest(), w.udp.dest())...)
		Eventually(forbidden.count).Should(BeNumerically(">=", 1), "the agent never reached %s: the spec proves nothing: %s", forbidden.dest(), o)
		Expect(o.Output()).To(ContainSubstring("sent 2\n"), "both messages went: %s", o)
		Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
		r := o.Result()
		Expect(r.UnverifiedNetwork).To(BeEmpty(), "the proxy sent each message itself: %s", o)
		Expect(r.NetworkViolations).To(HaveExactElements(sendmmsgTo(forbidden.dest())), "%s", o)

		o = s.run(ctx, append(chk, "--", bin.NetConnect, "mmsg", forbidden.dest(), third.dest())...)
		Eventually(third.count).Should(BeNumerically(">=", 1), "the agent never reached %s: %s", third.dest(), o)
		Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
		Expect(o.Result().NetworkViolations).To(ConsistOf(sendmmsgTo(forbidden.dest()), sendmmsgTo(third.dest())), "%s", o)

		o = s.run(ctx, append(append(chk, "--no-network"), "--", bin.NetConnect, "mmsg", forbidden.dest(), third.dest())...)
		Expect(o.Code).To(Equal(cli.ExitOK), "--no-network: %s", o)
	})
})

// Issue 43, item 14: 0.0.0.0 as a destination is this host. A socket
// bound to 127.0.0.2 that connects to 0.0.0.0:Q reaches 127.0.0.2:Q,
// and is reported so, not as 0.0.0.0:Q.
var _ = Describe("a connect to 0.0.0.0 from a bound socket", RequiresAudit, NamesBackend, Escape, labels.Network, func() {
	BeforeEach(func() { requireAudit() })

	for _, backend := range []string{"audit", "notify"} {
		It("names the address the kernel reached on "+backend, func(ctx SpecContext) {
			s := newFileScene(backend == "notify")
			w := newNetWorld(s)
			other := serveStream("tcp", "127.0.0.2:0")
			_, port, _ := net.SplitHostPort(other.dest())
			rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.NetConnect, "from", "127.0.0.1:0", w.tcp.dest())...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			w.gate(s.base)

			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.NetConnect, "from", "127.0.0.2:0", "0.0.0.0:"+port)...)
			Eventually(other.count).Should(BeNumerically(">=", 1), "the agent never reached %s: the spec proves nothing: %s", other.dest(), o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			r := o.Result()
			Expect(r.NetworkViolations).To(ContainElement(And(HaveField("Op", baseline.NetConnect), HaveField("Dest", other.dest()))), "%s", o)
			Expect(r.NetworkViolations).NotTo(ContainElement(HaveField("Dest", "0.0.0.0:"+port)), "%s", o)
		})
	}
})

func sendmmsgTo(dest string) OmegaMatcher {
	return And(HaveField("Op", baseline.NetSend), HaveField("Dest", dest), HaveField("Syscall", "sendmmsg"),
		HaveField("Program", bin.NetConnect), HaveField("Denied", false))
}
