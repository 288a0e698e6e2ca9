package faults_test

import (
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// refusedOf lists a result's refused attempts as "arch syscall".
func refusedOf(r *verdict.Result) []string {
	var out []string
	for _, f := range r.Refused {
		out = append(out, f.Arch.String()+" "+f.Syscall)
	}
	return out
}

// withSection makes sure the baseline's native list holds each entry
// ("name: reason"), as a hand-edited or older baseline would, and appends
// extra (a whole top-level section) when given.
func withSection(path string, entries []string, extra string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	text := string(data)
	head := "syscalls:\n  " + scmp.Native().String() + ":\n"
	Expect(text).To(ContainSubstring(head))
	for _, e := range entries {
		name := strings.SplitN(e, ":", 2)[0]
		if !strings.Contains(text, "    - "+name+":") && !strings.Contains(text, "    - "+name+"\n") {
			text = strings.Replace(text, head, head+"    - "+e+"\n", 1)
		}
	}
	Expect(os.WriteFile(path, []byte(text+extra), 0o644)).To(Succeed())
}

var _ = Describe("an agent acting where the filter cannot see", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	native := scmp.Native().String()
	ringEntries := []string{`io_uring_setup: "listed by hand"`, `io_uring_enter: "listed by hand"`}

	It("refuses io_uring (ENOSYS) even when the baseline lists it, so a socket opened through a ring falls back into view", func(ctx SpecContext) {
		base := recordBaseline(ctx, "uring")
		withSection(base, ringEntries, "")

		o := sysgate(ctx, checkArgs(base, "uring", nil)...)
		Expect(o.Code).To(Equal(cli.ExitViolation), "an io_uring socket op passed the gate: %s", o)
		r := o.Result()
		Expect(violationsOf(r)).To(ConsistOf(native+" socket(AF_INET)"), "%s", o)
		Expect(r.ExitStatus).To(Equal(0), "the agent did not fall back from ENOSYS: %s", o)
		Expect(refusedOf(r)).To(ContainElement(native+" io_uring_setup"), "%s", o)
	})

	It("shows a refused io_uring_setup in record as refused, not as a syscall to add", func(ctx SpecContext) {
		base := GinkgoT().TempDir() + "/uring.yaml"
		o := sysgate(ctx, "record", "-o", base, "--", bin.Agent, "uring", "escape")
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		Expect(o.Stderr).To(MatchRegexp(`(?i)refused.*\n.*io_uring_setup`), "%s", o)
		data, err := os.ReadFile(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("io_uring"))
		Expect(string(data)).To(ContainSubstring("- socket(AF_INET)"), "the fallback is what the agent does")
	})

	It("refuses the agent's own seccomp listener, so a CONTINUE-answered socket cannot run unlogged", func(ctx SpecContext) {
		// The run filter's listener alone makes the kernel answer EBUSY;
		// the agent exits 5 then. The gate's own rule answers EPERM first
		// and reports the attempt.
		base := recordBaseline(ctx, "notifier")
		o := sysgate(ctx, checkArgs(base, "notifier", nil)...)
		Expect(o.Code).To(Equal(cli.ExitViolation), "a notifier's hidden socket passed the gate: %s", o)
		r := o.Result()
		Expect(violationsOf(r)).To(ConsistOf(native+" socket(AF_INET)"), "%s", o)
		Expect(r.ExitStatus).To(Equal(0), "the listener was not refused with the gate's EPERM: %s", o)
		Expect(refusedOf(r)).To(ConsistOf(native+" seccomp"), "%s", o)
	})

	It("lets a baseline opt in to io_uring as unmonitored, and every report of the run says what went unseen", func(ctx SpecContext) {
		// The opt-in sits in a base the agent's file extends, so record
		// lets the ring through too and learns what the agent does
		// around it.
		dir := GinkgoT().TempDir()
		optIn := dir + "/uring-base.yaml"
		Expect(os.WriteFile(optIn, []byte("version: 1\nunmonitored:\n  "+native+":\n"+
			"    - io_uring_enter: \"the agent's runtime submits file reads through a ring\"\n"+
			"    - io_uring_setup: \"the agent's runtime submits file reads through a ring\"\n"), 0o644)).To(Succeed())
		base := dir + "/uring.yaml"
		rec := sysgate(ctx, "record", "-o", base, "--extends", optIn, "--", bin.Agent, "uring", "benign")
		Expect(rec.Code).To(Equal(cli.ExitOK), "%s", rec)
		Expect(rec.Stderr).To(ContainSubstring("UNMONITORED"))
		o := sysgate(ctx, checkArgs(base, "uring", nil)...)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		r := o.Result()
		Expect(r.Refused).To(BeEmpty())
		Expect(r.Unmonitored).To(HaveLen(2), "%s", o)

		text := sysgate(ctx, "check", "-b", base, "--", bin.Agent, "uring", "escape")
		Expect(text.Code).To(Equal(cli.ExitOK), "%s", text)
		Expect(text.Stdout).To(ContainSubstring("UNMONITORED"))
		Expect(text.Stdout).To(ContainSubstring("io_uring_setup"))
		gh := sysgate(ctx, "check", "--format", "github", "-b", base, "--", bin.Agent, "uring", "escape")
		Expect(gh.Stdout).To(MatchRegexp(`::warning .*unmonitored`), "%s", gh)
	})
})
