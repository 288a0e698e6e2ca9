package faults_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/verdict"
)

// An agent can run as many distinct programs as it likes (20,000 from
// memory grew one run to 111 MB and its JSON to 14 MB: issue 32, item
// 8). A run keeps at most verdict.MaxKept of each kind and counts the
// rest; what it did not keep still decides the verdict.
var _ = Describe("an agent that runs more distinct programs than a run keeps", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	// The programs are hard links of the static agent (which exits at once
	// without arguments): distinct paths, one file, no syscall the
	// recorded run did not make. /bin/sh is the run's first program, so
	// MaxKept-1 links fill the record run's list exactly.
	const allowed, total = verdict.MaxKept - 1, verdict.MaxKept + 500
	links := func(dir string, n int) {
		GinkgoHelper()
		for i := range n {
			name := filepath.Join(dir, fmt.Sprintf("p%05d", i))
			if _, err := os.Lstat(name); err == nil {
				continue
			}
			Expect(os.Link(bin.Agent, name)).To(Succeed())
		}
	}
	// Glob order is name order: the check run runs the allowed programs
	// first, so every program it cannot keep is outside the baseline.
	const runAll = `for p in ./p*; do "$p"; done; exit 0`

	for _, backend := range []string{"audit", "notify"} {
		It("keeps at most MaxKept programs, says so, and still fails on those it dropped ("+backend+")", func(ctx SpecContext) {
			dir := filepath.Join(filepath.Dir(bin.Agent), "kept-"+backend)
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			DeferCleanup(os.RemoveAll, dir)
			base := filepath.Join(GinkgoT().TempDir(), "kept.yaml")
			links(dir, allowed)
			o := sysgateWith(ctx, inDir(dir), "record", "--backend", backend, "-o", base, "--", "/bin/sh", "-c", runAll)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)

			links(dir, total)
			o = sysgateWith(ctx, inDir(dir), "check", "--backend", backend, "--format", "json", "-b", base, "--", "/bin/sh", "-c", runAll)
			r := o.Result()
			Expect(len(r.Programs)).To(BeNumerically("<=", verdict.MaxKept), "programs kept: %d", len(r.Programs))
			Expect(len(r.Processes)).To(BeNumerically("<=", verdict.MaxKept))
			Expect(r.NotKept).NotTo(BeNil(), "the JSON says nothing was dropped: %d programs", len(r.Programs))
			Expect(r.NotKept.ProgramExecs).To(BeEquivalentTo(total-allowed), "%+v", *r.NotKept)
			Expect(r.NotKept.ProgramViolations).To(BeEquivalentTo(total-allowed), "%+v", *r.NotKept)
			// Every kept program is in the baseline: only the dropped
			// ones make this run a violation.
			Expect(r.ProgramViolations).To(BeEmpty())
			Expect(r.Verdict).To(Equal(verdict.VerdictViolation), "%s", ci.Summary(r))
			Expect(o.Code).To(Equal(cli.ExitViolation))

			text := sysgateWith(ctx, inDir(dir), "check", "--backend", backend, "-b", base, "--", "/bin/sh", "-c", runAll)
			Expect(text.Code).To(Equal(cli.ExitViolation), "%s", text)
			Expect(text.Output()).To(ContainSubstring(fmt.Sprintf("%d more execs of programs", total-allowed)), "%s", text)
			Expect(text.Output()).To(ContainSubstring("not kept"))
		})
	}
})

// inDir runs sysgate from dir.
func inDir(dir string) func(*exec.Cmd) {
	return func(cmd *exec.Cmd) { cmd.Dir = dir }
}
