package faults_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// Processes outside the run share the machine's process table with it:
// an agent that can name one can act on it with syscalls its baseline
// already has (issue 22, holes 1 and 2). In a PID namespace of its own,
// with its own /proc, it can name none.
var _ = Describe("an agent reaching a process outside its run", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	// record runs the agent under the gate; nothing here needs a baseline.
	record := func(ctx SpecContext, args ...string) outcome {
		GinkgoHelper()
		o := sysgate(ctx, append([]string{"record", "-o", filepath.Join(GinkgoT().TempDir(), "a.yaml"), "--", bin.Agent}, args...)...)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		return o
	}

	It("cannot write a command into the stdin of a shell outside the run", func(ctx SpecContext) {
		marker := filepath.Join(GinkgoT().TempDir(), "injected")
		// The shell outside runs every line it reads from its pipe.
		shell := exec.Command("/bin/sh", "-c", `while read -r line; do eval "$line"; done`)
		stdin, err := shell.StdinPipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(shell.Start()).To(Succeed())
		o := record(ctx, "inject", "escape", strconv.Itoa(shell.Process.Pid), "touch "+marker)
		// EOF ends the shell once it has read everything in the pipe,
		// an injected line included.
		Expect(stdin.Close()).To(Succeed())
		Expect(shell.Wait()).To(Succeed())
		Expect(marker).NotTo(BeAnExistingFile(), "the shell outside ran the agent's line: %s", o)
		Expect(o.Stdout).To(ContainSubstring("No such file or directory"), "%s", o)
	})

	It("cannot kill a process outside the run through SIGIO", func(ctx SpecContext) {
		victim := exec.Command("/bin/sleep", "600")
		Expect(victim.Start()).To(Succeed())
		DeferCleanup(func() {
			_ = victim.Process.Kill()
			_ = victim.Wait()
		})
		o := record(ctx, "sigio", "escape", strconv.Itoa(victim.Process.Pid))
		// The signal is sent during the agent's write: by the time the
		// run is over it was delivered, or never will be.
		Expect(victim.Process.Signal(syscall.Signal(0))).To(Succeed(), "the victim outside the run was killed: %s", o)
		Expect(o.Stdout).To(ContainSubstring("No such process"), "%s", o)
		_, err := os.Stat("/proc/" + strconv.Itoa(victim.Process.Pid))
		Expect(err).NotTo(HaveOccurred())
	})

	It("sees only its run's processes, with sysgate's launcher as pid 1", func(ctx SpecContext) {
		o := sysgate(ctx, "record", "-o", filepath.Join(GinkgoT().TempDir(), "sh.yaml"), "--", "/bin/sh", "-c",
			`echo "pid=$$ ppid=$PPID"; echo "processes=$(ls /proc | grep -c '^[0-9]')"`)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		Expect(o.Stdout).To(ContainSubstring("pid=2 ppid=1"), "%s", o)
		Expect(o.Stdout).To(MatchRegexp(`processes=[1-9]\n`), "init, sh, ls and grep, not the machine's: %s", o)
		Expect(o.Output()).NotTo(ContainSubstring("process isolation unavailable"))
	})
})
