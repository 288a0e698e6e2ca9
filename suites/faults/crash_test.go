package faults_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/elastic/go-libaudit/v2/rule"
	"golang.org/x/sys/unix"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/auditlog/touch"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/kernel"
)

// tuningState is the part of /run/sysgate/tuning.json this suite reads:
// what AcquireTuning saved and who holds it.
type tuningState struct {
	Saved struct {
		BacklogLimit    uint32 `json:"backlog_limit"`
		BacklogWaitTime uint32 `json:"backlog_wait_time"`
	} `json:"saved"`
	Holders []struct {
		PID int `json:"pid"`
	} `json:"holders"`
}

func readTuning() (st tuningState, found bool) {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(auditctl.StateDir, "tuning.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return st, false
	}
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(data, &st)).To(Succeed())
	return st, true
}

func holderPIDs(st tuningState) []int {
	var out []int
	for _, h := range st.Holders {
		out = append(out, h.PID)
	}
	return out
}

var _ = Describe("the harness killed with SIGKILL mid-run", RequiresAudit, Crash, func() {
	BeforeEach(func() {
		requireAudit()
	})

	It("leaves no agent process running after the next start, which also restores the audit settings", ExclusiveKernel, func(ctx SpecContext) {
		base := recordBaseline(ctx, "linger")
		pidFile := filepath.Join(GinkgoT().TempDir(), "pids")
		DeferCleanup(killLeftovers, pidFile)

		cmd := exec.Command(bin.Sysgate, "check", "-b", base, "--", bin.Agent, "linger", "escape", pidFile)
		Expect(cmd.Start()).To(Succeed())
		waitForFile(pidFile)
		agents := pidsFrom(pidFile)
		st, found := readTuning()
		Expect(found).To(BeTrue(), "a running check holds the audit tuning")
		Expect(holderPIDs(st)).To(ContainElement(cmd.Process.Pid))
		saved := []uint32{st.Saved.BacklogLimit, st.Saved.BacklogWaitTime}

		Expect(cmd.Process.Kill()).To(Succeed())
		_ = cmd.Wait()
		Expect(alive(agents)).To(ConsistOf(agents), "the agent and its child outlive the killed harness (nothing else can end them)")

		// The next start: any run on the machine.
		next := sysgate(ctx, "check", "-b", base, "--", bin.Agent, "linger", "benign", filepath.Join(GinkgoT().TempDir(), "pids"))
		Expect(next.Code).To(Equal(cli.ExitOK), "%s", next)
		Expect(alive(agents)).To(BeEmpty(), "the killed run's agent tree is still running after the next start")

		// With every run on the machine finished, the settings are back.
		release, err := auditctltest.ExclusiveKernel()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(release)
		st, found = readTuning()
		Expect(found).To(BeFalse(), "tuning.json left behind, holders %v", holderPIDs(st))
		now, err := auditctl.ReadStatus()
		Expect(err).NotTo(HaveOccurred())
		Expect([]uint32{now.BacklogLimit, now.BacklogWaitTime}).To(Equal(saved), "audit backlog settings not restored after the crash")
	})

	// Issue 35: the run's audit syscall rules (files) cost every process
	// on the machine while they exist. Its watchdog removes them, and
	// gives back audit's enabled setting, as soon as the harness dies.
	It("leaves no audit rule behind and audit enabled as it was (the run's watchdog)", ExclusiveKernel, func(ctx SpecContext) {
		// What the kernel returns to once every holder lets go: a read of
		// the kernel's own value here would see other processes' runs
		// (enabled=1 while one holds rules) and fail the spec.
		before, orphans, err := auditctl.Settled()
		Expect(err).NotTo(HaveOccurred())
		base := recordBaseline(ctx, "linger")
		pidFile := filepath.Join(GinkgoT().TempDir(), "pids")
		DeferCleanup(killLeftovers, pidFile)

		cmd := exec.Command(bin.Sysgate, "check", "-b", base, "--", bin.Agent, "linger", "escape", pidFile)
		Expect(cmd.Start()).To(Succeed())
		waitForFile(pidFile)
		agents := pidsFrom(pidFile)
		auid, err := kernel.ReadLoginUID(agents[0])
		Expect(err).NotTo(HaveOccurred())
		key := touch.Key(auid)
		Expect(keyedRules(key)).NotTo(BeEmpty(), "the running check has rules keyed %s", key)
		watchdog := watchdogOf(cmd.Process.Pid)
		wd, err := kernel.PidfdOpen(watchdog)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(unix.Close, wd)

		Expect(cmd.Process.Kill()).To(Succeed())
		_ = cmd.Wait()
		// A deadline, not a sleep: the spec goes on as soon as it exits.
		ready, err := kernel.WaitReady([]int{wd}, 20_000)
		Expect(err).NotTo(HaveOccurred())
		Expect(ready).NotTo(BeEmpty(), "the watchdog (pid %d) still runs 20 s after its harness died", watchdog)
		Expect(keyedRules(key)).To(BeEmpty(), "the killed run's rules are still in the kernel")
		expectSettled(before, orphans, []string{key})
	})

	It("ends a run whose agent outlives its timeout: exit 3 naming the timeout, the tree killed", BadInput, func(ctx SpecContext) {
		base := recordBaseline(ctx, "linger")
		pidFile := filepath.Join(GinkgoT().TempDir(), "pids")
		DeferCleanup(killLeftovers, pidFile)
		start := time.Now()
		o := sysgate(ctx, checkArgs(base, "linger", []string{"--timeout", "2s"}, pidFile)...)
		r := expectInconclusive(o, "timed out")
		Expect(r.TimedOut).To(BeTrue())
		Expect(time.Since(start)).To(BeNumerically("<", time.Minute))
		Expect(alive(pidsFrom(pidFile))).To(BeEmpty())
		text := sysgate(ctx, "check", "--timeout", "1s", "-b", base, "--", bin.Agent, "linger", "escape", pidFile+"2")
		DeferCleanup(killLeftovers, pidFile+"2")
		Expect(text.Code).To(Equal(cli.ExitInconclusive))
		Expect(text.Output()).To(ContainSubstring("timed out"))
	})
})

// keyedRules are the kernel's audit rules that carry key.
func keyedRules(key string) []string {
	GinkgoHelper()
	rules, err := auditctl.ListRules()
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, r := range rules {
		text, err := rule.ToCommandLine(rule.WireFormat(r), true)
		Expect(err).NotTo(HaveOccurred())
		if strings.Contains(text, "key="+key) {
			out = append(out, text)
		}
	}
	return out
}

// watchdogOf is the pid of the files watchdog the harness pid started
// (a child re-executed as sysgate-touch-watchdog).
func watchdogOf(parent int) int {
	GinkgoHelper()
	pid := watchdogPID(parent)
	if pid == 0 {
		Fail(fmt.Sprintf("no watchdog among the children of %d", parent))
	}
	return pid
}
