package faults_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	libaudit "github.com/elastic/go-libaudit/v2"
	"github.com/elastic/go-libaudit/v2/rule"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/verdict"
)

// expectInconclusive checks a `check --format json` outcome: exit 3, an
// inconclusive verdict, and a reason containing each of why.
func expectInconclusive(o outcome, why ...string) *verdict.Result {
	GinkgoHelper()
	GinkgoWriter.Printf("%s\n", o)
	Expect(o.Code).To(Equal(cli.ExitInconclusive), "%s", o)
	r := o.Result()
	Expect(r.Verdict).To(Equal(verdict.VerdictInconclusive))
	for _, w := range why {
		Expect(r.Inconclusive).To(ContainSubstring(w), "%s", o)
	}
	return r
}

// expectViolationDespite checks a `check --format json` outcome of an agent
// that made new syscalls and then lost records: the violation outranks the
// loss (exit 1, issue 12), and the inconclusive cause is reported beside
// it, containing each of why.
func expectViolationDespite(o outcome, why ...string) *verdict.Result {
	GinkgoHelper()
	GinkgoWriter.Printf("%s\n", o)
	Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
	r := o.Result()
	Expect(r.Verdict).To(Equal(verdict.VerdictViolation))
	Expect(r.Saw("getppid")).To(BeTrue(), "the new syscall is named")
	Expect(r.Conclusive()).To(BeFalse(), "the loss is reported beside the violation")
	for _, w := range why {
		Expect(r.Inconclusive).To(ContainSubstring(w), "%s", o)
	}
	return r
}

var _ = Describe("audit records that never reach sysgate", RequiresAudit, Loss, func() {
	var base string

	BeforeEach(func(ctx SpecContext) {
		requireAudit()
		base = recordBaseline(ctx, "loop")
	})

	It("reports the violation, with the kernel's drops beside it, when records are dropped at the source (backlog_limit 16, backlog_wait_time 0)", ExclusiveKernel, func() {
		withKernelFault(func() {
			Expect(auditctltest.SetBacklog(16, 0)).To(Succeed())
		}, func() {
			o := sysgateInProcess(checkArgs(base, "loop", nil, "200000")...)
			r := expectViolationDespite(o, "dropped by the kernel", "backlog_limit")
			Expect(r.Loss.KernelLost).To(BeNumerically(">", 0))
			Expect(r.Observed.Count(r.Arch, "getppid")).To(BeNumerically("<", 200000))
		})
	})

	It("reports the violation, with the overflow beside it, when the audit socket overflows while sysgate's reader stalls", SpecTimeout(4*time.Minute), func(ctx SpecContext) {
		// The reader is stopped (SIGSTOP, as a starved CI runner would
		// stop it) while the agent logs more records than the 128 MiB
		// receive buffer holds. (auditlog's own tests force a tiny buffer
		// through Options.RcvBuf; this is the same overflow end to end.)
		// Paced (50 calls/ms): the overflow is only in the stopped reader's
		// socket, not in the kernel backlog other runs share.
		cmd := sysgateCommand(ctx, checkArgs(base, "loop", nil, "250000", "50")...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Signal(syscall.SIGCONT) })
		agent := waitForAgent(cmd.Process.Pid, bin.Agent)
		Expect(cmd.Process.Signal(syscall.SIGSTOP)).To(Succeed())
		// Until the agent has made all its calls: it is a zombie then, or
		// waits in exit_group, which goes to the stopped listener when
		// programs are observed (an exec pending at exit is verified
		// there).
		Eventually(func() []int { return alive(notInExitGroup([]int{agent})) }).WithTimeout(2 * time.Minute).WithPolling(20 * time.Millisecond).Should(BeEmpty())
		Expect(cmd.Process.Signal(syscall.SIGCONT)).To(Succeed())
		err := cmd.Wait()
		o := outcome{Code: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
		Expect(err).To(HaveOccurred(), "%s", o)
		r := expectViolationDespite(o, "ENOBUFS", "serial number gaps")
		Expect(r.Loss.ENOBUFS).To(BeNumerically(">", 0))
		Expect(r.Observed.Count(r.Arch, "getppid")).To(BeNumerically("<", 250000))
	})

	It("is inconclusive, naming actions_logged, when seccomp's log action is not logged", ExclusiveKernel, func() {
		withKernelFault(func() {
			logged, err := auditctl.ReadActionsLogged()
			Expect(err).NotTo(HaveOccurred())
			Expect(auditctltest.SetActionsLogged(strings.TrimSpace(strings.ReplaceAll(" "+logged+" ", " log ", " ")))).To(Succeed())
		}, func() {
			// The agent makes 1000 calls outside its baseline; none is
			// logged, so without the barrier this would look clean.
			o := sysgateInProcess(checkArgs(base, "loop", nil, "1000")...)
			r := expectInconclusive(o, "actions_logged", "barrier")
			Expect(r.Events).To(BeZero())
			text := sysgateInProcess("check", "-b", base, "--", bin.Agent, "loop", "escape", "1000")
			Expect(text.Code).To(Equal(cli.ExitInconclusive))
			Expect(text.Output()).To(ContainSubstring("INCONCLUSIVE"))
			Expect(text.Output()).To(ContainSubstring("actions_logged"))
			doctor := sysgateInProcess("doctor")
			Expect(doctor.Code).To(Equal(cli.ExitInconclusive), "%s", doctor)
			Expect(doctor.Output()).To(ContainSubstring("actions_logged"))
		})
	})

	It("reports the violation, with the barrier failure beside it, when the barrier never completes (its sentinel's records are filtered out)", GlobalAuditRule, func(ctx SpecContext) {
		// An audit exclude rule for the sysgate binary drops the records of
		// the barrier's sentinel thread (a thread of sysgate) and nothing
		// else: the agent's own records still arrive.
		excludeSeccompRecordsOf(bin.Sysgate)
		o := sysgate(ctx, checkArgs(base, "loop", nil, "10")...)
		r := expectViolationDespite(o, "barrier", "no sentinel record")
		Expect(r.Observed.Count(r.Arch, "getppid")).To(BeEquivalentTo(10), "the agent's records still arrive")
	})
})

// waitForAgent returns the pid of the descendant of pid that runs exe:
// the agent runs under the init of its run's PID namespace, sysgate's
// child (the launcher's processes before their exec do not count).
func waitForAgent(pid int, exe string) int {
	GinkgoHelper()
	var agent int
	Eventually(func() error {
		for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", queue[0]))
			if err != nil {
				continue // gone meanwhile
			}
			for _, t := range tasks {
				data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", queue[0], t.Name()))
				for _, f := range strings.Fields(string(data)) {
					child, err := strconv.Atoi(f)
					if err != nil {
						return err
					}
					if path, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", child)); path == exe {
						agent = child
						return nil
					}
					queue = append(queue, child)
				}
			}
		}
		return fmt.Errorf("no descendant of %d runs %s yet", pid, exe)
	}).WithTimeout(30 * time.Second).WithPolling(time.Millisecond).Should(Succeed())
	return agent
}

// excludeSeccompRecordsOf adds the audit rule
// "-a always,exclude -F msgtype=1326 -F exe=PATH" for the running spec.
func excludeSeccompRecordsOf(path string) {
	GinkgoHelper()
	wire, err := rule.Build(&rule.SyscallRule{
		Type: rule.AppendSyscallRuleType, List: "exclude", Action: "always",
		Filters: []rule.FilterSpec{
			{Type: rule.ValueFilterType, LHS: "msgtype", Comparator: "=", RHS: "1326"},
			{Type: rule.ValueFilterType, LHS: "exe", Comparator: "=", RHS: path},
		},
	})
	Expect(err).NotTo(HaveOccurred())
	client, err := libaudit.NewAuditClient(nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(client.Close)
	Expect(client.AddRule(wire)).To(Succeed())
	DeferCleanup(func() {
		Expect(client.DeleteRule(wire)).To(Succeed())
	})
}
