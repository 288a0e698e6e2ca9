package faults_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/harness"
)

// A root agent (no --user) that needs no new syscall at all: it reaches
// for sysgate itself or for kernel knobs with calls its baseline holds.
// The agent's exit status says what it could do (0: every attempt was
// refused); the gate must still judge the run, clean.
var _ = Describe("a root agent fenced off from the observer", RequiresAudit, Escape, Fence, func() {
	BeforeEach(func() {
		requireAudit()
	})

	expectRefused := func(ctx SpecContext, mode string) *harness.Result {
		GinkgoHelper()
		base := recordBaseline(ctx, mode)
		o := sysgate(ctx, checkArgs(base, mode, nil)...)
		r := o.Result()
		Expect(r.ExitStatus).To(Equal(0), "the root agent got through (exit bits: see agent.c %s): %s", mode, o)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		Expect(r.Verdict).To(Equal(harness.VerdictClean))
		Expect(r.Leaked).To(BeEmpty())
		return r
	}

	It("cannot open sysgate's memory for writing or PTRACE_SEIZE it", func(ctx SpecContext) {
		expectRefused(ctx, "observer")
	})

	It("cannot write actions_logged, core_pattern or modprobe (same value written back)", func(ctx SpecContext) {
		expectRefused(ctx, "knobs")
	})
})
