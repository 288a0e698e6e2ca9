package faults_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/testutil"
)

// An agent names its processes: a symlink it execs through becomes the
// exec's path, argv[0] and comm in every report. Named with terminal
// escapes it cleared the reader's terminal and set its title when the
// text report was printed; named with HTML and an @mention it opened a
// <details> block and pinged a user in the step summary (issue 32,
// item 7). Every renderer must show such a name as data.
var _ = Describe("an agent naming a program with terminal escapes and markdown", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	DescribeTable("reaches neither the terminal nor the step summary raw", func(ctx SpecContext, backend string) {
		dir := GinkgoT().TempDir()
		// The agent may run as another uid: it writes its symlink here.
		Expect(os.Chmod(dir, 0o777)).To(Succeed())
		py, err := filepath.EvalSymlinks(testutil.Python(GinkgoT()))
		Expect(err).NotTo(HaveOccurred())
		script, err := filepath.Abs("testdata/hostile_names.py")
		Expect(err).NotTo(HaveOccurred())
		base := filepath.Join(GinkgoT().TempDir(), "hostile.yaml")
		o := sysgate(ctx, "record", "--backend", backend, "--agent", "hostile", "-o", base, "--", py, script, "benign", dir)
		Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)

		result := filepath.Join(GinkgoT().TempDir(), "result.json")
		check := sysgate(ctx, "check", "--backend", backend, "--agent", "hostile", "-b", base, "--result", result, "--", py, script, "escape", dir)
		Expect(check.Code).To(Equal(cli.ExitViolation), "check: %s", check)
		// The name did reach the run: the assertions below are not about
		// a name that never got there.
		data, err := os.ReadFile(result)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`\u003cdetails\u003e@octocat`), "the result lacks the hostile name: %s", check)

		summary := sysgate(ctx, "report", "summary", "--root", dir, "--result", result)
		Expect(summary.Code).To(Equal(cli.ExitOK), "report summary: %s", summary)
		annotations := sysgate(ctx, "report", "annotations", "--root", dir, "--result", result)
		Expect(annotations.Code).To(Equal(cli.ExitOK), "report annotations: %s", annotations)
		for what, out := range map[string]string{"check's text": check.Output(), "the step summary": summary.Output(), "the annotations": annotations.Output()} {
			Expect(out).NotTo(ContainSubstring("\x1b"), "%s prints a raw ESC:\n%q", what, out)
			Expect(out).NotTo(ContainSubstring("\x07"), "%s prints a raw BEL:\n%q", what, out)
		}
		Expect(check.Stdout).To(ContainSubstring(`\x1b[2J`), "the text report hides the escape instead of showing it: %s", check)
		Expect(summary.Stdout).NotTo(ContainSubstring("<details>"), "the summary opens a <details> block:\n%s", summary.Stdout)
		Expect(summary.Stdout).NotTo(ContainSubstring("@octocat"), "the summary mentions a user:\n%s", summary.Stdout)
		Expect(summary.Stdout).To(ContainSubstring("&lt;details&gt;"), "the summary hides the name instead of showing it:\n%s", summary.Stdout)
	},
		Entry("audit", "audit"),
		Entry("notify", "notify"),
	)
})
