package faults_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
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
