package faults_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/verdict"
)

// A root agent (no --user) that needs no new syscall at all: it reaches
// for sysgate itself or for kernel knobs with calls its baseline holds.
// The agent's exit status says what it could do (0: every attempt was
// refused); the gate must still judge the run, clean.
var _ = Describe("a root agent fenced off from the observer", RequiresAudit, Escape, Fence, func() {
	BeforeEach(func() {
		requireAudit()
	})

	expectRefused := func(ctx SpecContext, mode string) *verdict.Result {
		GinkgoHelper()
		base := recordBaseline(ctx, mode)
		o := sysgate(ctx, checkArgs(base, mode, nil)...)
		r := o.Result()
		Expect(r.ExitStatus).To(Equal(0), "the root agent got through (exit bits: see agent.c %s): %s", mode, o)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		Expect(r.Verdict).To(Equal(verdict.VerdictClean))
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

// Issue 43, item 5: a root agent whose baseline makes a FIFO (mknodat)
// makes a block device node of the machine's disk at the same path and
// reads its raw blocks, past every file rule. mknodat is classed by the
// kind of node, so the block device is a new class; and CAP_MKNOD is
// fenced, so the call fails (EPERM: agent.c's blockdev exits 8).
var _ = Describe("a root agent making a block device", RequiresAudit, Escape, Fence, func() {
	It("is caught where its baseline makes only a FIFO, and refused", func(ctx SpecContext) {
		requireAudit()
		dir := GinkgoT().TempDir()
		base := filepath.Join(GinkgoT().TempDir(), "blockdev.yaml")
		rec := sysgate(ctx, "record", "-o", base, "--", bin.Agent, "blockdev", "benign", dir)
		Expect(rec.Code).To(Equal(cli.ExitOK), "record: %s", rec)
		o := sysgate(ctx, "check", "--format", "json", "-b", base, "--", bin.Agent, "blockdev", "escape", dir)
		r := o.Result()
		Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
		Expect(r.Verdict).To(Equal(verdict.VerdictViolation))
		Expect(violationsOf(r)).To(ContainElement(ContainSubstring("mknodat(block)")), "%s", o)
		Expect(r.ExitStatus).To(Equal(8), "the agent made the block device (agent.c blockdev): %s", o)
	})
})
