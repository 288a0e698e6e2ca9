package faults_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// outcome is one sysgate invocation: its exit code and what it printed.
type outcome struct {
	Code           int
	Stdout, Stderr string
}

// Output is everything the user saw, for reason-text assertions.
func (o outcome) Output() string { return o.Stdout + o.Stderr }

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", o.Code, o.Stdout, o.Stderr)
}

// Result decodes `check --format json` output.
func (o outcome) Result() *verdict.Result {
	GinkgoHelper()
	var r verdict.Result
	Expect(json.Unmarshal([]byte(o.Stdout), &r)).To(Succeed(), "not a JSON result:\n%s", o)
	return &r
}

// sysgate runs the built CLI to completion (see sysgateWith).
func sysgate(ctx context.Context, args ...string) outcome {
	GinkgoHelper()
	return sysgateWith(ctx, func(*exec.Cmd) {}, args...)
}

// sysgateWith runs the built CLI like sysgate, after setup has adjusted
// the command (extra descriptors, environment, terminal).
func sysgateWith(ctx context.Context, setup func(*exec.Cmd), args ...string) outcome {
	GinkgoHelper()
	cmd := sysgateCommand(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	setup(cmd)
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(fmt.Sprintf("run sysgate %v: %v", args, err))
	}
	o := outcome{Code: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
	if i := slices.Index(args, "--result"); i >= 0 && i+1 < len(args) && cmd.Stderr != &stderr {
		// The report went to the spec's terminal: the result file says
		// why a run was inconclusive.
		if b, err := os.ReadFile(args[i+1]); err == nil {
			var r struct {
				Inconclusive string `json:"inconclusive"`
			}
			if json.Unmarshal(b, &r) == nil && r.Inconclusive != "" {
				o.Stderr += "inconclusive (from --result): " + r.Inconclusive + "\n"
			}
		}
	}
	return o
}

// sysgateCommand is the built CLI under the spec's context. When the
// spec's deadline expires it is stopped as a user's interrupt stops it
// (SIGTERM: it kills the agent's tree and reports an inconclusive, timed
// out run); SIGKILL only if it has not exited 20 s later, inside Ginkgo's
// default grace period of 30 s.
func sysgateCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin.Sysgate, recordOnce(args)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	return cmd
}

// recordOnce gives a record command line --runs 1 unless it says how
// many runs: the fault agents change their workspace or the machine (an
// attack planted, a file moved, a repository cloned), so running one
// again is another invocation, and these specs are about what one run
// does. Record's default, until further runs add nothing, has specs of
// its own (cmd/sysgate/cli, ci/gatetest).
func recordOnce(args []string) []string {
	if len(args) == 0 || args[0] != "record" {
		return args
	}
	flags := args
	if i := slices.Index(args, "--"); i >= 0 {
		flags = args[:i]
	}
	if slices.ContainsFunc(flags, func(a string) bool { return a == "--runs" || strings.HasPrefix(a, "--runs=") }) {
		return args
	}
	return append([]string{"record", "--runs", "1"}, args[1:]...)
}

// sysgateInProcess runs the CLI's Main in this process: for faults forced
// under ExclusiveKernel, which a separate sysgate process would wait for.
func sysgateInProcess(args ...string) outcome {
	var stdout, stderr bytes.Buffer
	c := &cli.Command{Stdout: &stdout, Stderr: &stderr}
	code := c.Main(append([]string{"sysgate"}, recordOnce(args)...))
	return outcome{Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// requireAudit gates a privileged spec: a skip under CI=true fails.
func requireAudit() {
	GinkgoHelper()
	testutil.RequireAudit(GinkgoT())
}

// recordBaseline records `agent MODE benign` (with the extra run flags,
// e.g. --user) and returns the baseline file: everything the mode does
// except its escape.
func recordBaseline(ctx context.Context, mode string, flags ...string) string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), mode+".yaml")
	args := append([]string{"record", "-o", path}, flags...)
	args = append(args, "--", bin.Agent, mode, "benign", filepath.Join(GinkgoT().TempDir(), "pids"))
	o := sysgate(ctx, args...)
	Expect(o.Code).To(Equal(cli.ExitOK), "record %s: %s", mode, o)
	allowPidFiles(path)
	Expect(os.Chmod(filepath.Dir(path), 0o755)).To(Succeed())
	return path
}

// allowPidFiles gives the recorded baseline a reviewed entry for the pid
// file the agent writes: each spec passes one in a directory of its own
// under /tmp, which the run did not make, so record writes the recorded
// one literally (it generalises under {tmp} only what the run made).
func allowPidFiles(path string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	doc, err := baseline.ParseDocument(path, data)
	Expect(err).NotTo(HaveOccurred(), "the recorded baseline")
	if !doc.HasFiles {
		return // recorded without files: nothing gates them
	}
	doc.Files = append(doc.Files, baseline.FileEntry{Pattern: filepath.Join(os.TempDir(), "ginkgo*", "pids*"), Op: baseline.FileWrite,
		Reason: "the spec's pid file, in a directory of its own per spec"})
	Expect(os.WriteFile(path, doc.Format(), 0o644)).To(Succeed())
}

// checkArgs is `check --format json -b base FLAGS -- agent MODE escape ARGS`.
func checkArgs(base, mode string, flags []string, args ...string) []string {
	a := append([]string{"check", "--format", "json", "-b", base}, flags...)
	a = append(a, "--", bin.Agent, mode, "escape")
	return append(a, args...)
}

// withKernelFault holds ExclusiveKernel and AcquireTuning (so the runs
// inside see the tuned backlog unless force changes it), applies force,
// runs fn, and checks that the audit settings are back as they were once
// the tuning is released. Other processes' runs wait meanwhile.
func withKernelFault(force func(), fn func()) {
	GinkgoHelper()
	release, err := auditctltest.ExclusiveKernel()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(release)
	before, err := auditctl.ReadStatus()
	Expect(err).NotTo(HaveOccurred())
	logged, err := auditctl.ReadActionsLogged()
	Expect(err).NotTo(HaveOccurred())
	untune, err := auditctl.AcquireTuning()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(untune()).To(Succeed())
		Expect(auditctltest.SetActionsLogged(logged)).To(Succeed())
		after, err := auditctl.ReadStatus()
		Expect(err).NotTo(HaveOccurred())
		Expect([]uint32{after.BacklogLimit, after.BacklogWaitTime}).To(Equal([]uint32{before.BacklogLimit, before.BacklogWaitTime}),
			"audit backlog settings not restored")
	})
	force()
	fn()
}

// pidsFrom reads "PID PID" written by the linger mode.
func pidsFrom(path string) []int {
	GinkgoHelper()
	var a, b int
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	_, err = fmt.Sscan(string(data), &a, &b)
	Expect(err).NotTo(HaveOccurred(), "pid file %q", data)
	return hostPids(path, a, b)
}

// hostPids maps pids the agent wrote (in its run's PID namespace) to the
// pids of the same processes here: the live processes whose command line
// holds marker (the agent's pid file, unique to the spec) and whose pid in
// their innermost namespace (the last NSpid field) is one of nspids.
// Processes already gone are left out.
func hostPids(marker string, nspids ...int) []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range procs {
		cmdline, err := os.ReadFile(dir + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		status, err := os.ReadFile(dir + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			f := strings.Fields(strings.TrimPrefix(line, "NSpid:"))
			if !strings.HasPrefix(line, "NSpid:") || len(f) == 0 {
				continue
			}
			inner, _ := strconv.Atoi(f[len(f)-1])
			host, _ := strconv.Atoi(f[0])
			if slices.Contains(nspids, inner) {
				out = append(out, host)
			}
		}
	}
	return out
}

// alive returns the pids of pids that still run (zombies count as gone).
func alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if st, err := kernel.ReadStat(pid); err != nil || st.State == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// notInExitGroup leaves out of pids the processes inside exit_group
// (/proc/PID/syscall names the call a blocked process is in).
func notInExitGroup(pids []int) []int {
	var out []int
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid))
		if f := strings.Fields(string(b)); err == nil && len(f) > 0 && f[0] == strconv.Itoa(unix.SYS_EXIT_GROUP) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// killLeftovers is the spec's own safety net: nothing it started may
// outlive it, whatever sysgate did.
func killLeftovers(pidFile string) {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	var a, b int
	if _, err := fmt.Sscan(string(data), &a, &b); err != nil {
		return
	}
	for _, pid := range alive(hostPids(pidFile, a, b)) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitForFile polls until path has content (the agent reached a point).
func waitForFile(path string) {
	GinkgoHelper()
	Eventually(func() (int, error) {
		data, err := os.ReadFile(path)
		return len(data), err
	}).WithTimeout(30 * time.Second).WithPolling(10 * time.Millisecond).Should(BeNumerically(">", 0))
}
