package faults_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// Issue 43, items 1 and 8: an agent that reads a few files of its own
// /proc entry, so that record writes /proc/self/**: read
// (testdata/filetouch.c, mode procself).

// shmSecret is a token on tmpfs (/dev/shm: a file system of major 0, as
// procfs is), readable by nobody, removed after the spec.
func shmSecret() string {
	GinkgoHelper()
	dir, err := os.MkdirTemp("/dev/shm", "sysgate-secret-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	token := filepath.Join(dir, "token")
	Expect(os.WriteFile(token, []byte("secret token\n"), 0o644)).To(Succeed())
	return token
}

// recordProcSelf records the benign run: the agent's /proc files and a
// file of its workspace, read by their names.
func recordProcSelf(ctx SpecContext, s fileScene, backend string) {
	GinkgoHelper()
	rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, s.flags(backend)...)
	o := s.run(ctx, append(rec, "--", bin.FileTouch, "procself", filepath.Join(s.work, "inside.txt"))...)
	Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
	data, err := os.ReadFile(s.base)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(data)).To(ContainSubstring("- /proc/self/**"), "record writes the agent's own /proc entry as a glob")
}

var _ = Describe("an agent that reads a tmpfs file through /proc/self/root/..", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	// Item 1: the audit path cleaned /proc/self/root/../dev/shm/x/token
	// as a string, to /proc/self/dev/shm/x/token; the tmpfs inode's
	// device has major 0, as procfs's has, so the name was trusted as a
	// /proc file and /proc/self/** allowed it: a clean run. The name
	// must be the file the kernel reached, or the run inconclusive.
	DescribeTable("fails the gate with the file named",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			recordProcSelf(ctx, s, backend)
			token := shmSecret()
			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(chk, "--", bin.FileTouch, "procroot", token)...)
			Expect(o.Output()).To(ContainSubstring("read /proc/self/root/.."+token+": content"), "the agent must reach the token: %s", o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "the token is outside the baseline: %s", o)
			r := o.Result()
			Expect(r.Violations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.FileViolations).To(ContainElement(And(HaveField("Path", token), HaveField("Op", baseline.FileRead))), "%s", o)
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})

var _ = Describe("enforce under a baseline with the agent's own /proc entry", RequiresAudit, NamesBackend, func() {
	BeforeEach(func() { requireAudit() })

	// Item 8: the Landlock rule for /proc/self/** was put on what
	// /proc/self is to sysgate (its own /proc/PID), so enforce refused
	// the agent the reads its baseline lists: "open /proc/self/status:
	// Permission denied".
	DescribeTable("lets the agent read its /proc files and still refuses a file outside",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			recordProcSelf(ctx, s, backend)
			enf := append([]string{"enforce", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(enf, "--", bin.FileTouch, "procself", filepath.Join(s.work, "inside.txt"))...)
			Expect(o.Code).To(Equal(cli.ExitOK), "the benign run under enforce: %s", o)
			Expect(o.Result().ExitStatus).To(BeZero(), "%s", o)

			// Not the scene's key: its home lies under /tmp, which the
			// agent's own program there opens to enforce ({tmp}/**: exec).
			token := shmSecret()
			o = s.run(ctx, append(enf, "--", bin.FileTouch, "procself", token)...)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			Expect(o.Output()).To(ContainSubstring("read "+token+": nothing"), "enforce let the agent read the token: %s", o)
			Expect(o.Result().FileViolations).To(ConsistOf(And(HaveField("Path", token), HaveField("Op", baseline.FileRead), HaveField("Denied", true))), "%s", o)
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})
