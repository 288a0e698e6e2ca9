package faults_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/kernel"
)

// Issue 22: ways past the gate that need no syscall outside the baseline,
// because they go around the filter through files and processes the agent
// shares with the rest of the machine.
var _ = Describe("an agent reaching outside its run", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	Context("through its own baseline file", func() {
		// link gives path a second name in its directory: the read-only
		// bind covers the name sysgate passes, not the inode.
		link := func(path string) string {
			GinkgoHelper()
			l := path + ".link"
			Expect(os.Link(path, l)).To(Succeed())
			return l
		}

		It("cannot append to its check baseline: the file is read-only where the agent runs", func(ctx SpecContext) {
			base := recordBaseline(ctx, "poison")
			before, err := os.ReadFile(base)
			Expect(err).NotTo(HaveOccurred())
			o := sysgate(ctx, "check", "-b", base, "--", bin.Agent, "poison", "escape")
			Expect(o.Code).To(Equal(cli.ExitAgentFailed), "the agent's write should have failed: %s", o)
			Expect(os.ReadFile(base)).To(Equal(before), "the agent reached its baseline: %s", o)
		})

		It("fails the check run that appended a group to its baseline through another name", func(ctx SpecContext) {
			base := recordBaseline(ctx, "poison")
			o := sysgate(ctx, "check", "-b", base, "--", bin.Agent, "poison", "escape", link(base))
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
			o := sysgate(ctx, "record", "-o", out, "--", bin.Agent, "poison", "escape", link(out))
			written, err := os.ReadFile(out)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(written)).NotTo(ContainSubstring("poison:"), "the planted group reached the written baseline: %s", o)
			Expect(string(written)).NotTo(ContainSubstring("connect"))
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
			Expect(o.Output()).To(ContainSubstring("the agent modified its own baseline " + out))
		})
	})

	Context("through sysgate's state directory", func() {
		// /run/sysgate holds the audit tuning state and the claims on
		// runs that the next run acts on: a root agent sees neither.
		It("sees an empty, read-only /run/sysgate", func(ctx SpecContext) {
			Expect(os.MkdirAll("/run/sysgate/sessions", 0o755)).To(Succeed())
			DeferCleanup(func() { _ = os.Remove("/run/sysgate/sessions/1") }) // a claim planted by a failing run
			o := sysgate(ctx, "record", "-o", filepath.Join(GinkgoT().TempDir(), "sh.yaml"), "--", "/bin/sh", "-c",
				`echo "listed:$(ls -A /run/sysgate | tr '\n' ' ')"; if echo 1 2>/dev/null >/run/sysgate/sessions/1; then echo planted; else echo refused; fi`)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("listed:\n"), "the agent sees sysgate's state: %s", o)
			Expect(o.Stdout).To(ContainSubstring("refused"), "%s", o)
			Expect("/run/sysgate/sessions/1").NotTo(BeAnExistingFile())
		})
	})

	Context("through its result file", func() {
		It("cannot write the result file of an earlier run while it runs", func(ctx SpecContext) {
			base := recordBaseline(ctx, "poison") // the shell's syscalls are violations; only the write matters here
			result := filepath.Join(GinkgoT().TempDir(), "result.json")
			Expect(os.WriteFile(result, []byte("{}\n"), 0o644)).To(Succeed())
			o := sysgate(ctx, "check", "--allow-agent-failure", "--result", result, "-b", base, "--", "/bin/sh", "-c",
				`if echo forged 2>/dev/null >>"$0"; then echo wrote; else echo refused; fi`, result)
			Expect(o.Stdout).To(ContainSubstring("refused"), "the agent wrote the result file: %s", o)
			written, err := os.ReadFile(result)
			Expect(err).NotTo(HaveOccurred())
			Expect(outcome{Stdout: string(written)}.Result().Command).To(HaveExactElements("/bin/sh", "-c", HaveSuffix("fi"), result),
				"sysgate wrote this run's result after it")
		})
	})

	Context("through a /proc directory hidden under a mount", func() {
		// A root agent cannot mount (CAP_SYS_ADMIN is fenced), so the
		// test does it for the agent's child from outside the run.
		It("makes the run inconclusive naming the hidden process, never finished", ExclusiveKernel, func(ctx SpecContext) {
			base := recordBaseline(ctx, "linger")
			pidFile := filepath.Join(GinkgoT().TempDir(), "pids")
			DeferCleanup(killLeftovers, pidFile)
			// While the mount stands, every run on the machine is unsure
			// of its own members (the hidden process may be one of
			// theirs): other processes' runs wait, and this one runs in
			// this process.
			withKernelFault(func() {}, func() {
				// Files, not pipes: the hidden child keeps its copy of the
				// agent's stdio until the run's end kills it.
				stdout, err := os.Create(filepath.Join(GinkgoT().TempDir(), "stdout"))
				Expect(err).NotTo(HaveOccurred())
				done := make(chan int, 1)
				go func() {
					c := &cli.Command{Stdout: stdout, Stderr: stdout}
					done <- c.Main([]string{"sysgate", "check", "--format", "json", "--timeout", "2s", "-b", base, "--", bin.Agent, "linger", "escape", pidFile})
				}()
				waitForFile(pidFile)
				hidden := pidsFrom(pidFile)[1]
				proc := "/proc/" + strconv.Itoa(hidden)
				Expect(syscall.Mount(GinkgoT().TempDir(), proc, "", syscall.MS_BIND, "")).To(Succeed())
				DeferCleanup(func() { _ = syscall.Unmount(proc, syscall.MNT_DETACH) })
				_, err = kernel.ReadSession(hidden)
				Expect(err).To(HaveOccurred(), "the mount does not hide the session")

				code := <-done
				out, err := os.ReadFile(stdout.Name())
				Expect(err).NotTo(HaveOccurred())
				Expect(code).To(Equal(cli.ExitInconclusive), "%s", out)
				o := outcome{Stdout: string(out)}
				Expect(o.Result().Inconclusive).To(ContainSubstring("audit session unreadable of live pids [%d]", hidden))
			})
		})
	})

	Context("through a planted abandoned-run claim", func() {
		// victimInFreshSession starts a process outside any run, in an
		// audit session of its own (the test is root, so it may set its
		// loginuid), and returns it with that session.
		victimInFreshSession := func() (*exec.Cmd, uint32) {
			GinkgoHelper()
			victim := exec.Command("/bin/sh", "-c", "echo 0 > /proc/self/loginuid && exec sleep 600")
			Expect(victim.Start()).To(Succeed())
			DeferCleanup(func() {
				_ = victim.Process.Kill()
				_ = victim.Wait()
			})
			Eventually(func() (string, error) {
				st, err := kernel.ReadStat(victim.Process.Pid)
				return st.Comm, err
			}).Should(Equal("sleep"))
			ses, err := kernel.ReadSession(victim.Process.Pid)
			Expect(err).NotTo(HaveOccurred())
			return victim, ses
		}

		// The claims an agent with write access to /run/sysgate can
		// plant: the old format (owner pid and start time) and a forgery
		// of the new one naming a dead owner. A claim for the unset
		// session 4294967295 is left to the harness's unit tests: today's
		// sysgate on another worktree of this machine would act on it.
		// Any run on the machine acts on (or reports) a claim it finds:
		// other processes' runs wait while the claim is planted, so the
		// run here, in this process, is the one that meets it.
		DescribeTable("kills nothing outside a sysgate run", ExclusiveKernel, func(ctx SpecContext, claim string) {
			base := recordBaseline(ctx, "thread")
			victim, ses := victimInFreshSession()
			withKernelFault(func() {}, func() {
				path := filepath.Join(auditctl.StateDir, "sessions", strconv.FormatUint(uint64(ses), 10))
				Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
				Expect(os.WriteFile(path, []byte(claim), 0o644)).To(Succeed())
				DeferCleanup(func() { _ = os.Remove(path) })

				o := sysgateInProcess("check", "-b", base, "--", bin.Agent, "thread", "benign")
				Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
				Expect(victim.Process.Signal(syscall.Signal(0))).To(Succeed(), "a planted claim made the run kill a process outside any run")
				st, err := kernel.ReadStat(victim.Process.Pid)
				Expect(err).NotTo(HaveOccurred())
				Expect(st.State).NotTo(Equal(byte('Z')), "a planted claim made the run kill a process outside any run: %s", o)
				Expect(o.Stderr).To(ContainSubstring("audit session " + strconv.FormatUint(uint64(ses), 10)))
			})
		},
			Entry("a dead owner in the old format", "999999999 1\n"),
			Entry("a forged claim in the new format", "999999999 1 v2 0 1 1073741824 0\n"),
		)
	})
})
