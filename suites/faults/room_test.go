package faults_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// Issue 22: ways past the gate that need no syscall outside the baseline,
// because they go around the filter through files and processes the agent
// shares with the rest of the machine.
var _ = Describe("an agent reaching outside its run", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	Context("through its own baseline file", func() {
		It("fails the check run that appended a group to its baseline", func(ctx SpecContext) {
			base := recordBaseline(ctx, "poison")
			o := sysgate(ctx, "check", "-b", base, "--", bin.Agent, "poison", "escape")
			poisoned, err := os.ReadFile(base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(poisoned)).To(ContainSubstring("poison:"), "the agent did not reach its baseline: %s", o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			Expect(o.Output()).To(ContainSubstring("the agent modified its own baseline " + base))

			json := sysgate(ctx, "check", "--format", "json", "-b", base, "--", bin.Agent, "poison", "benign")
			Expect(json.Code).To(Equal(cli.ExitOK), "an unchanged baseline passes: %s", json)
			Expect(json.Result().ModifiedBaselines).To(BeEmpty())
		})

		It("keeps the group an agent appends to its record target out of the written file", func(ctx SpecContext) {
			out := recordBaseline(ctx, "poison")
			o := sysgate(ctx, "record", "-o", out, "--", bin.Agent, "poison", "escape")
			written, err := os.ReadFile(out)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(written)).NotTo(ContainSubstring("poison"), "the planted group reached the written baseline: %s", o)
			Expect(string(written)).NotTo(ContainSubstring("connect"))
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			Expect(o.Output()).To(ContainSubstring("the agent modified its own baseline " + out))
		})
	})
})
