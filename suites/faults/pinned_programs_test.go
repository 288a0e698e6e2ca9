package faults_test

import (
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// Issue 32, item 2: the programs section named programs by path, so an
// agent that can write a listed program (its own helper script) ran
// another program under the listed name and the check was clean.
var _ = Describe("an agent replacing a listed program it can write", RequiresAudit, NamesBackend, Escape, func() {
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
			r := expectReplaced(mode, o, tool, And(ContainSubstring("sha256"), ContainSubstring(tool)))
			Expect(r.Verdict).To(Equal(verdict.VerdictViolation))
		},
		Entry("check, audit", "check", "audit"),
		Entry("check, notify", "check", "notify"),
		Entry("enforce, audit", "enforce", "audit"),
		Entry("enforce, notify", "enforce", "notify"),
	)
})

// Issue 43, item 6: a pinned helper on tmpfs that the agent can write,
// rewritten in place through a MAP_SHARED mapping of a page it read
// first, keeps its size, mtime and ctime; the hash cached at its first
// exec answered for the second (testdata/mmapswap.c): a clean run.
var _ = Describe("an agent rewriting its pinned helper on tmpfs through a shared mapping", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	DescribeTable("is caught: the helper's content is not the one pinned",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			dir, err := os.MkdirTemp("/dev/shm", "sysgate-helper-")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(os.RemoveAll, dir)
			Expect(os.Chmod(dir, 0o755)).To(Succeed())
			helper := filepath.Join(dir, "helper")
			reset := func() {
				GinkgoHelper()
				Expect(os.WriteFile(helper, []byte("#!/bin/sh\necho benign\n"), 0o755)).To(Succeed())
				if nobody {
					Expect(os.Chown(dir, 65534, 65534)).To(Succeed())
					Expect(os.Chown(helper, 65534, 65534)).To(Succeed())
				}
			}
			reset()
			rec := append([]string{"record", "--agent", "mmapswap", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.MmapSwap, "benign", helper)...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			data, err := os.ReadFile(s.base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(MatchRegexp(`(?m)^  - path: `+regexp.QuoteMeta(helper)+`\n    sha256: [0-9a-f]{64}$`), "record did not pin the agent's helper")

			reset()
			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.MmapSwap, "escape", helper)...)
			Expect(o.Output()).To(ContainSubstring("benign\nescape\n"), "the rewritten helper must run: %s", o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			r := o.Result()
			Expect(r.Violations).To(BeEmpty(), "only the program's content is new: %s", o)
			Expect(r.ProgramViolations).To(ContainElement(And(
				HaveField("Path", helper),
				HaveField("Mismatch", ContainSubstring("sha256")),
			)), "%s", o)
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})

// expectReplaced checks a run whose agent replaced the listed program at
// path and ran it: a violation naming path with a mismatch as described;
// check let the program run, enforce refused it (the agent's
// subprocess.run raised: exit 1).
func expectReplaced(mode string, o outcome, path string, mismatch OmegaMatcher) *verdict.Result {
	GinkgoHelper()
	Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
	r := o.Result()
	if mode == "check" {
		Expect(r.ExitStatus).To(Equal(0), "the replaced program did not run: %s", o)
	} else {
		Expect(r.ExitStatus).To(Equal(1), "enforce let the replaced program run: %s", o)
	}
	Expect(r.ProgramViolations).To(ContainElement(And(HaveField("Path", path), HaveField("Mismatch", mismatch))), "%s", o)
	return r
}
