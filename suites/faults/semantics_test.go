package faults_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The gate watches an agent; it must not change what the agent's syscalls
// return, or real agents fail under it and nowhere else.
var _ = Describe("an agent under the gate", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	It("sees fork behave as natively: no EINTR while SIGCHLD arrives", func(ctx SpecContext) {
		var base string
		if os.Getenv("SYSGATE_BACKEND") == "notify" {
			// Record under notify holds every call, forks too: a signal
			// that lands before sysgate receives the fork makes it
			// return EINTR (docs/limits.md). Check holds only calls
			// outside the baseline, and those are what this spec is about.
			base = recordBaseline(ctx, "forkstorm", "--allow-agent-failure")
		} else {
			base = recordBaseline(ctx, "forkstorm")
		}
		o := sysgate(ctx, checkArgs(base, "forkstorm", nil)...)
		r := o.Result()
		Expect(r.ExitStatus).To(Equal(0), "forks failed under the gate: %s", o)
		// and the run still judged it: the one new syscall is caught
		Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
		Expect(violationsOf(r)).To(ConsistOf(scmp.Native().String() + " sysinfo"))
	})
})
