package faults_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// TIOCSTI pushes bytes into a terminal's input as if typed: an agent that
// shares the caller's terminal can queue a command line that the caller's
// shell runs after sysgate exits (issue 22, hole 6). The kernel allows it
// for a process whose controlling terminal it is, where
// dev.tty.legacy_tiocsti is 1 (the spec sets it for its run).
var _ = Describe("an agent pushing keystrokes into the caller's terminal", RequiresAudit, Escape, func() {
	var tty *os.File // the caller's terminal: sysgate's stdin and controlling terminal
	var setup func(*exec.Cmd)

	BeforeEach(func() {
		requireAudit()
		const knob = "/proc/sys/dev/tty/legacy_tiocsti"
		if old, err := os.ReadFile(knob); err == nil && strings.TrimSpace(string(old)) != "1" {
			Expect(os.WriteFile(knob, []byte("1"), 0o644)).To(Succeed())
			DeferCleanup(os.WriteFile, knob, old, os.FileMode(0o644))
		}
		tty = openPty()
		setup = func(cmd *exec.Cmd) {
			cmd.Stdin = tty
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		}
	})

	queued := func() int {
		GinkgoHelper()
		n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
		Expect(err).NotTo(HaveOccurred())
		return n
	}

	run := func(ctx SpecContext, flags ...string) outcome {
		GinkgoHelper()
		args := append([]string{"record", "-o", filepath.Join(GinkgoT().TempDir(), "tiocsti.yaml")}, flags...)
		o := sysgateWith(ctx, setup, append(args, "--", bin.Agent, "tiocsti", "benign")...)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		return o
	}

	It("never reaches the caller's terminal", func(ctx SpecContext) {
		o := run(ctx)
		Expect(queued()).To(BeZero(), "the agent's keystrokes wait in the caller's terminal: %s", o)
		Expect(o.Stdout).To(ContainSubstring("tiocsti pushed 0"), "%s", o)
	})

	It("lands in the agent's own terminal under --tty, never in the caller's", func(ctx SpecContext) {
		o := run(ctx, "--tty")
		Expect(queued()).To(BeZero(), "the agent's keystrokes wait in the caller's terminal: %s", o)
		Expect(o.Stdout).To(ContainSubstring("tiocsti pushed 21"), "its own terminal takes them: %s", o)
	})
})
