package faults_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/elastic/go-libaudit/v2/rule"
	"golang.org/x/sys/unix"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/kernel"
)

// Issue 42 ("nothing left behind"): every kernel setting a run changes
// (audit enabled, backlog_limit, backlog_wait_time, the run's rules;
// actions_logged, which only fault tests change) is given back when runs
// overlap and when one is SIGKILLed at any stage. "Back" is
// auditctl.Settled: what the kernel returns to once every holder on the
// machine lets go, so runs of other processes beside the spec change
// nothing, and the kernel's own values when no holder is left.
var _ = Describe("the kernel settings runs hold", RequiresAudit, Crash, AuditSettings, func() {
	BeforeEach(func() {
		requireAudit()
	})

	It("are back after overlapping runs that start and end in interleaved order", SpecTimeout(4*time.Minute), func(ctx SpecContext) {
		base := recordBaseline(ctx, "hold")
		before, orphans, err := auditctl.Settled()
		Expect(err).NotTo(HaveOccurred())
		var keys []string
		start := func() *heldRun {
			r := startHeld(ctx, bin.Sysgate, base, "")
			waitForFile(r.pidFile) // the agent runs: its run holds the tuning and its rules
			st, found := readTuning()
			Expect(found).To(BeTrue(), "a running check holds the tuning")
			Expect(holderPIDs(st)).To(ContainElement(r.cmd.Process.Pid))
			auid, err := kernel.ReadLoginUID(pidsFrom(r.pidFile)[0])
			Expect(err).NotTo(HaveOccurred())
			keys = append(keys, fmt.Sprintf("sysgate-%d", auid))
			Expect(keyedRules(keys[len(keys)-1])).NotTo(BeEmpty(), "the running check has its rules")
			return r
		}
		a := start()
		b := start()
		a.end()
		c := start()
		d := start()
		c.end()
		b.end()
		e := start()
		d.end()
		e.end()
		expectSettled(before, orphans, keys)
		for _, r := range []*heldRun{a, b, c, d, e} {
			r.passed()
		}
	})

	DescribeTable("are back after a run is SIGKILLed", func(ctx SpecContext, stage string) {
		base := recordBaseline(ctx, "hold")
		before, orphans, err := auditctl.Settled()
		Expect(err).NotTo(HaveOccurred())
		r := startHeld(ctx, bin.SysgateStops, base, stage)
		if stage == "running" {
			waitForFile(r.pidFile)
		} else {
			Expect(r.stdin.Close()).To(Succeed()) // the agent runs to its end
			Eventually(r.stopped).WithTimeout(time.Minute).Should(Receive(Equal(stage)), "sysgate never stopped at %s:\n%s", stage, r.out)
		}
		pid := r.cmd.Process.Pid
		keys := ruleFileKeys(pid)
		// The watchdog exists from before the rules are added until they
		// are removed: it is the one that recovers then.
		wd := -1
		if w := watchdogPID(pid); w > 0 {
			wd, err = kernel.PidfdOpen(w)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(unix.Close, wd)
		}
		Expect(r.cmd.Process.Kill()).To(Succeed())
		// The agent may outlive its killed harness (it is the watchdog's
		// and the next run's to clean up after); it holds the output
		// pipes until its stdin ends, so end that before waiting.
		_ = r.stdin.Close()
		_ = r.cmd.Wait()
		if wd >= 0 {
			// A deadline, not a sleep: the spec goes on as soon as it exits.
			ready, err := kernel.WaitReady([]int{wd}, 20_000)
			Expect(err).NotTo(HaveOccurred())
			Expect(ready).NotTo(BeEmpty(), "the watchdog still runs 20 s after its harness died")
		}
		// The next start recovers what no watchdog did.
		next := sysgate(ctx, "check", "-b", base, "--", bin.Agent, "hold", "benign", filepath.Join(GinkgoT().TempDir(), "pids"))
		Expect(next.Code).To(Equal(cli.ExitOK), "%s", next)
		left, err := filepath.Glob(filepath.Join(auditctl.StateDir, fmt.Sprintf("rules-%d-*.json", pid)))
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(BeEmpty(), "the killed run's rule files")
		if st, found := readTuning(); found {
			Expect(holderPIDs(st)).NotTo(ContainElement(pid), "the killed run still holds the tuning")
		}
		expectSettled(before, orphans, keys)
	},
		Entry("after saving the settings, before tuning", "tuning-saved"),
		Entry("after tuning", "tuned"),
		Entry("after writing its rule file, before adding the rules", "rules-saved"),
		Entry("after adding its rules", "rules-added"),
		Entry("while its agent runs", "running"),
		Entry("after deleting its rules, before removing their file", "rules-deleted"),
		Entry("while giving the tuning back", "leaving"),
	)
})

// heldRun is a `sysgate check` of `agent hold`: it runs until its stdin
// is closed.
type heldRun struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	pidFile string
	out     *stageWatcher
	stopped chan string // the stage a fault build stopped at
}

// stageWatcher keeps what sysgate printed and sends the stage a fault
// build says it stopped at ("sysgate: stopped at STAGE").
type stageWatcher struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	stopped chan<- string
}

var stoppedAt = regexp.MustCompile(`(?m)^sysgate: stopped at (\S+)$`)

func (w *stageWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := stoppedAt.FindSubmatch(w.buf.Bytes()); m != nil && w.stopped != nil {
		w.stopped <- string(m[1])
		w.stopped = nil
	}
	return len(p), nil
}

func (w *stageWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startHeld starts exe (the CLI, or its fault build stopping at stage).
func startHeld(ctx SpecContext, exe, base, stage string) *heldRun {
	GinkgoHelper()
	stopped := make(chan string, 1)
	r := &heldRun{pidFile: filepath.Join(GinkgoT().TempDir(), "pids"), out: &stageWatcher{stopped: stopped}, stopped: stopped}
	r.cmd = exec.CommandContext(ctx, exe, "check", "-b", base, "--", bin.Agent, "hold", "benign", r.pidFile)
	r.cmd.Env = append(os.Environ(), "SYSGATE_FAULT_STOP="+stage)
	// What sysgate printed is kept up to its exit: a descendant that
	// still holds the pipes must not hold the spec.
	r.cmd.WaitDelay = 10 * time.Second
	var err error
	r.stdin, err = r.cmd.StdinPipe()
	Expect(err).NotTo(HaveOccurred())
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	Expect(r.cmd.Start()).To(Succeed())
	DeferCleanup(func() {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		killLeftovers(r.pidFile)
	})
	return r
}

// end closes the run's stdin; its agent then exits and the run ends.
// Whether it passed is checked after the settings (passed), so a false
// alarm is reported beside them, not instead of them.
func (r *heldRun) end() {
	GinkgoHelper()
	Expect(r.stdin.Close()).To(Succeed())
	_ = r.cmd.Wait()
}

// passed expects the run to have ended clean: the agent did what it
// did when recorded.
func (r *heldRun) passed() {
	GinkgoHelper()
	Expect(r.cmd.ProcessState.ExitCode()).To(Equal(cli.ExitOK), "check of agent hold:\n%s", r.out)
}

// expectSettled checks every setting against before (auditctl.Settled
// when the spec began) and that no rule with one of keys is left. When
// no run on the machine holds anything, Settled is the kernel's own
// values; while other processes' runs hold the tuning, it is what they
// saved, which they restore. (Waiting for the kernel to itself with
// ExclusiveKernel took over 2 minutes on this shared machine.)
func expectSettled(before auditctl.Settings, orphans, keys []string) {
	GinkgoHelper()
	Expect(auditctl.LeftBehind(before, orphans)).To(Succeed())
	for _, key := range keys {
		Expect(keyedRules(key)).To(BeEmpty(), "rules keyed %s left in the kernel", key)
	}
}

// ruleFileKeys are the rule keys in the rule files of pid.
func ruleFileKeys(pid int) []string {
	GinkgoHelper()
	files, err := filepath.Glob(filepath.Join(auditctl.StateDir, fmt.Sprintf("rules-%d-*.json", pid)))
	Expect(err).NotTo(HaveOccurred())
	var keys []string
	for _, f := range files {
		var rf struct {
			Rules []string `json:"rules"`
		}
		data, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(data, &rf)).To(Succeed())
		for _, h := range rf.Rules {
			w, err := hex.DecodeString(h)
			Expect(err).NotTo(HaveOccurred())
			text, err := rule.ToCommandLine(rule.WireFormat(w), true)
			Expect(err).NotTo(HaveOccurred())
			if i := strings.Index(text, "key="); i >= 0 {
				keys = append(keys, strings.Fields(text[i+len("key="):])[0])
			}
		}
	}
	return keys
}

// watchdogPID is the rule watchdog among pid's children, or 0.
func watchdogPID(pid int) int {
	GinkgoHelper()
	kids, err := kernel.Descendants(pid)
	Expect(err).NotTo(HaveOccurred())
	for _, kid := range kids {
		if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", kid.PID)); err == nil && bytes.HasPrefix(cmdline, []byte("sysgate-touch-watchdog\x00")) {
			return kid.PID
		}
	}
	return 0
}
