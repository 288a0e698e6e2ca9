package faults_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/kernel"
)

// Without a PID namespace (the notify backend run by a user who cannot
// have one) the agent's parent is the run's init, sysgate's subreaper, and
// a process of the same uid can stop it (issue 32, item 4). A stopped init
// reaps nothing and reports nothing: sysgate must still end the run within
// its timeout, and on SIGTERM, and never call it clean.
var _ = Describe("an agent that stops the run's init", RequiresAudit, NamesBackend, Escape, func() {
	// The agent stops its parent, then says so with its pid: a line on
	// its stdout, which sysgate relays.
	const stopInit = `kill -STOP $PPID && echo init-stopped $$`

	var dir string
	BeforeEach(func() {
		requireAudit() // root, to become nobody
		var err error
		dir, err = os.MkdirTemp("", "sysgate-stopinit")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		Expect(os.Chmod(dir, 0o777)).To(Succeed())
	})

	// asNobody runs sysgate as nobody where no user namespace can be made
	// (nouserns): no CAP_SYS_ADMIN and no user namespace of its own, so no
	// PID namespace, and the notify backend.
	asNobody := func(cmd *exec.Cmd) {
		cmd.Args = append([]string{bin.NoUserns, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = bin.NoUserns
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	}
	recordArgs := func(timeout string) []string {
		return recordOnce([]string{"record", "--backend", "notify", "--timeout", timeout, "--grace", "1s",
			"-o", filepath.Join(dir, "stop.yaml"), "--", "/bin/sh", "-c", stopInit})
	}

	It("gets a verdict naming the stopped init within its timeout", func(ctx SpecContext) {
		// The run's own deadline is 5 s; the spec allows sysgate 30 s more
		// to return at all (a hang fails here, not a slow machine).
		runCtx, cancel := context.WithTimeout(ctx, 35*time.Second)
		defer cancel()
		o := sysgateWith(runCtx, asNobody, recordArgs("5s")...)
		var agent int
		if _, err := fmt.Sscanf(o.Stdout, "init-stopped %d", &agent); err == nil {
			killInitOf(agent)
		}
		Expect(runCtx.Err()).NotTo(HaveOccurred(), "sysgate did not return before the spec's deadline: %s", o)
		Expect(o.Stdout).To(ContainSubstring("init-stopped "), "the agent did not stop its init: %s", o)
		// The shell may stop init before init has reported the agent (the
		// next spec's case): then the run never got a report, only the
		// error, and it must still be inconclusive and name init.
		if !strings.Contains(o.Output(), "before it reported the agent") {
			Expect(o.Output()).To(ContainSubstring("process isolation unavailable"),
				"the spec needs a run without a PID namespace (where the agent's parent is the run's subreaper init): %s", o)
		}
		Expect(o.Code).To(Equal(cli.ExitInconclusive), "%s", o)
		Expect(o.Output()).To(ContainSubstring("the run's init"), "the report names the stopped init: %s", o)
	})

	It("gets a verdict when the agent stops its init before init has reported it", func(ctx SpecContext) {
		// A static agent stops its parent first thing: init may be stopped
		// before or after it reported the agent; either way the run ends.
		runCtx, cancel := context.WithTimeout(ctx, 35*time.Second)
		defer cancel()
		o := sysgateWith(runCtx, asNobody, "record", "--backend", "notify", "--timeout", "5s", "--grace", "1s",
			"-o", filepath.Join(dir, "stop.yaml"), "--", bin.StopParent)
		Expect(runCtx.Err()).NotTo(HaveOccurred(), "sysgate did not return before the spec's deadline: %s", o)
		Expect(o.Code).To(Equal(cli.ExitInconclusive), "%s", o)
		Expect(o.Output()).To(ContainSubstring("the run's init"), "%s", o)
	})

	It("ends the run on SIGTERM while the init is stopped", func(ctx SpecContext) {
		runCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		// No run timeout: only the signal can end the run.
		cmd := exec.Command(bin.Sysgate, recordArgs("0")...)
		asNobody(cmd)
		stdout, err := cmd.StdoutPipe()
		Expect(err).NotTo(HaveOccurred())
		var stderr strings.Builder
		cmd.Stderr = &stderr
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Kill() })
		lines := bufio.NewReader(stdout)
		line, err := lines.ReadString('\n')
		Expect(err).NotTo(HaveOccurred(), "stderr: %s", stderr.String())
		var agent int
		_, err = fmt.Sscanf(line, "init-stopped %d\n", &agent)
		Expect(err).NotTo(HaveOccurred(), "%q", line)
		// Signalled once the agent has exited (a zombie its stopped init
		// cannot reap): the run is over, and sysgate waits for init. A
		// sysgate that continues init may have had it reaped already:
		// then there is nothing to wait for (a pid reused since is not
		// the agent's sh).
		DeferCleanup(killInitOf, agent)
		if pidfd, err := kernel.PidfdOpen(agent); err == nil {
			DeferCleanup(unix.Close, pidfd)
			if st, err := kernel.ReadStat(agent); err == nil && st.Comm == "sh" {
				ready, err := kernel.WaitReady([]int{pidfd}, 20_000)
				Expect(err).NotTo(HaveOccurred())
				Expect(ready).NotTo(BeEmpty(), "the agent did not exit")
			}
		} else {
			Expect(err).To(MatchError(unix.ESRCH))
		}
		Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		rest := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(lines)
			_ = cmd.Wait()
			rest <- string(b)
		}()
		var out string
		select {
		case out = <-rest:
		case <-runCtx.Done():
			Fail("sysgate did not exit after SIGTERM while the run's init was stopped; stderr: " + stderr.String())
		}
		Expect(cmd.ProcessState.ExitCode()).To(Equal(cli.ExitInconclusive), "stdout: %s\nstderr: %s", out, stderr.String())
		// The signal may find sysgate waiting for init (cancelled) or done
		// with it: either way the stopped init is named.
		Expect(out+stderr.String()).To(ContainSubstring("the run's init"), "stdout: %s\nstderr: %s", out, stderr.String())
	})
})

// killInitOf kills the parent of the agent pid if it is still a sysgate
// init, which a sysgate that hung and was killed leaves behind, stopped.
func killInitOf(agent int) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", agent))
	if err != nil {
		return // reaped: its init is gone or did its job
	}
	var ppid int
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", ppid)); ppid > 1 && exe == bin.Sysgate {
		_ = syscall.Kill(ppid, syscall.SIGKILL)
	}
}
