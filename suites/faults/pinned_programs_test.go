package faults_test

import (
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/testutil"
)

// Issue 32, item 2: the programs section named programs by path, so an
// agent that can write a listed program (its own helper script) ran
// another program under the listed name and the check was clean.
var _ = Describe("an agent replacing a listed program it can write", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	DescribeTable("is caught (check) or refused (enforce): the program's content is not the one recorded",
		func(ctx SpecContext, mode, backend string) {
			dir := GinkgoT().TempDir()
			Expect(os.Chmod(dir, 0o755)).To(Succeed())
			tool := filepath.Join(dir, "tool.sh")
			Expect(os.WriteFile(tool, []byte("#!/bin/sh\nexit 0\n"), 0o755)).To(Succeed())
			agent, err := filepath.Abs("testdata/pinned_tool.py")
			Expect(err).NotTo(HaveOccurred())
			py, err := filepath.EvalSymlinks(testutil.Python(GinkgoT()))
			Expect(err).NotTo(HaveOccurred())
			base := filepath.Join(GinkgoT().TempDir(), "tool.yaml")

			o := sysgate(ctx, "record", "--backend", backend, "--agent", "tool", "-o", base, "--", py, agent, "benign", dir)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			data, err := os.ReadFile(base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(MatchRegexp(`(?m)^  - path: `+regexp.QuoteMeta(tool)+`\n    sha256: [0-9a-f]{64}$`), "record did not pin the agent's helper")
			// The attack is a program the agent may write: the directory is
			// the spec's, not the run's, so record wrote only the scratch
			// file it saw written, and a person grants the rest.
			doc, err := baseline.ParseDocument(base, data)
			Expect(err).NotTo(HaveOccurred())
			doc.Files = append(doc.Files, baseline.FileEntry{Pattern: dir + "/**", Op: baseline.FileWrite, Reason: "the agent rewrites its own helpers"})
			Expect(os.WriteFile(base, doc.Format(), 0o644)).To(Succeed())

			o = sysgate(ctx, mode, "--backend", backend, "--format", "json", "--agent", "tool", "-b", base, "--", py, agent, "escape", dir)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			r := o.Result()
			if mode == "check" {
				Expect(r.ExitStatus).To(Equal(0), "the replaced tool did not run: %s", o)
			} else {
				// Refused: the agent's subprocess.run raised.
				Expect(r.ExitStatus).To(Equal(1), "enforce let the replaced tool run: %s", o)
			}
			Expect(r.ProgramViolations).To(ContainElement(And(
				HaveField("Path", tool),
				HaveField("Mismatch", And(ContainSubstring("sha256"), ContainSubstring(tool))),
			)), "%s", o)
			Expect(r.Verdict).To(Equal(harness.VerdictViolation))
		},
		Entry("check, audit", "check", "audit"),
		Entry("check, notify", "check", "notify"),
		Entry("enforce, audit", "enforce", "audit"),
		Entry("enforce, notify", "enforce", "notify"),
	)
})
