package faults_test

import (
	"context"
	"fmt"
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

// recordShell is `sysgate record -o TMP FLAGS -- sh -c script`: the agent
// prints what it was handed; record needs no baseline.
func recordShell(ctx context.Context, setup func(*exec.Cmd), flags []string, script string) outcome {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	// --result: the report may go to the spec's terminal.
	args := append([]string{"record", "-o", filepath.Join(dir, "shell.yaml"), "--result", filepath.Join(dir, "result.json")}, flags...)
	return sysgateWith(ctx, setup, append(args, "--", "/bin/sh", "-c", script)...)
}

// recordFds is `sysgate record -o TMP FLAGS -- agent fds benign`: the
// agent prints "N -> TARGET" for each descriptor it was started with (a
// shell would add descriptors of its own).
func recordFds(ctx context.Context, setup func(*exec.Cmd), flags ...string) outcome {
	GinkgoHelper()
	args := append([]string{"record", "-o", filepath.Join(GinkgoT().TempDir(), "fds.yaml")}, flags...)
	return sysgateWith(ctx, setup, append(args, "--", bin.Agent, "fds", "benign")...)
}

// fdsListed returns the descriptor numbers the fds agent printed.
func fdsListed(out string) []string {
	var fds []string
	for _, line := range strings.Split(out, "\n") {
		if fd, _, ok := strings.Cut(line, " -> "); ok {
			fds = append(fds, fd)
		}
	}
	return fds
}

// inheritableSocket opens an AF_INET socket without close-on-exec, as a
// careless parent (a CI runner, make, a test binary) would hold one, and
// returns it with the "socket:[INODE]" text /proc shows for it.
func inheritableSocket() (*os.File, string) {
	GinkgoHelper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	Expect(err).NotTo(HaveOccurred())
	f := os.NewFile(uintptr(fd), "inet")
	DeferCleanup(f.Close)
	var st unix.Stat_t
	Expect(unix.Fstat(fd, &st)).To(Succeed())
	return f, fmt.Sprintf("socket:[%d]", st.Ino)
}

var _ = Describe("an agent handed more than it asked for", RequiresAudit, Escape, Inherit, func() {
	BeforeEach(func() {
		requireAudit()
	})

	Context("descriptors", func() {
		It("does not get the caller's inheritable socket, unless --keep-fd names it", func(ctx SpecContext) {
			sock, name := inheritableSocket()
			// ExtraFiles[0] is the caller's fd 3, not close-on-exec.
			withSocket := func(cmd *exec.Cmd) { cmd.ExtraFiles = []*os.File{sock} }

			o := recordFds(ctx, withSocket)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("0 -> "), "the agent listed no descriptors: %s", o)
			Expect(o.Stdout).NotTo(ContainSubstring(name), "the agent holds the caller's socket: it can send without socket()/connect(): %s", o)

			kept := recordFds(ctx, withSocket, "--keep-fd", "3")
			Expect(kept.Code).To(Equal(cli.ExitOK), "%s", kept)
			Expect(fdsListed(kept.Stdout)).To(ConsistOf("0", "1", "2", "3"), "%s", kept)
			Expect(kept.Stdout).To(ContainSubstring("3 -> "+name), "--keep-fd 3 did not pass the socket at fd 3: %s", kept)
		})

		It("gets none of sysgate's own descriptors: only 0, 1 and 2 are open at exec", func(ctx SpecContext) {
			o := recordFds(ctx, func(*exec.Cmd) {})
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(fdsListed(o.Stdout)).To(ConsistOf("0", "1", "2"), "%s", o)
		})

		It("refuses --keep-fd of a descriptor the caller does not hold, or one of 0-2", func(ctx SpecContext) {
			o := recordShell(ctx, func(*exec.Cmd) {}, []string{"--keep-fd", "9"}, "true")
			Expect(o.Code).To(Equal(cli.ExitUsage), "%s", o)
			Expect(o.Stderr).To(ContainSubstring("--keep-fd 9"), "%s", o)
			o = recordShell(ctx, func(*exec.Cmd) {}, []string{"--keep-fd", "1"}, "true")
			Expect(o.Code).To(Equal(cli.ExitUsage), "%s", o)
		})
	})

	Context("environment", func() {
		script := `echo "token=$ACTIONS_RUNTIME_TOKEN output=$GITHUB_OUTPUT gh=$GITHUB_TOKEN home=$HOME set=$FROM_FILE"`
		runnerEnv := func(cmd *exec.Cmd) {
			cmd.Env = append(os.Environ(), "ACTIONS_RUNTIME_TOKEN=secret-runtime", "GITHUB_OUTPUT=/tmp/forge-me",
				"GITHUB_TOKEN=secret-gh", "HOME=/root")
		}

		It("drops runner credentials and workflow-command files by default and names them, never their values", func(ctx SpecContext) {
			o := recordShell(ctx, runnerEnv, nil, script)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("token= output= gh= home=/root"), "the agent got the runner's credentials: %s", o)
			Expect(o.Stderr).To(ContainSubstring("ACTIONS_RUNTIME_TOKEN"), "the report does not name the dropped variables: %s", o)
			Expect(o.Stderr).To(ContainSubstring("GITHUB_OUTPUT"), "%s", o)
			Expect(o.Output()).NotTo(ContainSubstring("secret-"), "a dropped variable's value was printed: %s", o)
		})

		It("passes a dropped variable back with --pass-env (globs too), and sets variables from --env-file", func(ctx SpecContext) {
			envFile := filepath.Join(GinkgoT().TempDir(), "agent.env")
			Expect(os.WriteFile(envFile, []byte("# set for the agent\nFROM_FILE=yes\n\nGITHUB_TOKEN=from-file\n"), 0o600)).To(Succeed())
			o := recordShell(ctx, runnerEnv, []string{"--pass-env", "ACTIONS_RUNTIME_TOKEN", "--pass-env", "GITHUB_OUT*",
				"--env-file", envFile}, script)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("token=secret-runtime output=/tmp/forge-me gh=from-file home=/root set=yes"), "%s", o)
		})

		It("rejects a malformed --env-file line with file:line and exit 2", func(ctx SpecContext) {
			envFile := filepath.Join(GinkgoT().TempDir(), "agent.env")
			Expect(os.WriteFile(envFile, []byte("GOOD=1\nnot a variable\n"), 0o600)).To(Succeed())
			o := recordShell(ctx, func(*exec.Cmd) {}, []string{"--env-file", envFile}, "true")
			Expect(o.Code).To(Equal(cli.ExitUsage), "%s", o)
			Expect(o.Stderr).To(ContainSubstring(envFile+":2:"), "%s", o)
		})
	})

	Context("the terminal", func() {
		// script tells whether the agent has a controlling terminal:
		// opening /dev/tty fails with ENXIO without one.
		const script = `if (exec 3<>/dev/tty) 2>/dev/null; then echo CTTY; else echo NO-CTTY; fi`

		// onTerminal makes a fresh pty the controlling terminal of the
		// sysgate process (a new session), on the child's fd ctty, which
		// gets the pty's terminal end.
		onTerminal := func(ctty int) func(*exec.Cmd) {
			GinkgoHelper()
			tty := openPty()
			return func(cmd *exec.Cmd) {
				switch ctty {
				case 0:
					cmd.Stdin = tty
				case 2:
					cmd.Stderr = tty
				}
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: ctty}
			}
		}

		It("gives the agent no controlling terminal even when stdin is the caller's terminal", func(ctx SpecContext) {
			o := recordShell(ctx, onTerminal(0), nil, script)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("NO-CTTY"), "the agent can open the caller's terminal: %s", o)
		})

		It("gives the agent a terminal of its own with --tty, and relays what it prints", func(ctx SpecContext) {
			o := recordShell(ctx, onTerminal(0), []string{"--tty"}, script+`; tty`)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("CTTY"), "%s", o)
			Expect(o.Stdout).NotTo(ContainSubstring("NO-CTTY"), "%s", o)
			Expect(o.Stdout).To(MatchRegexp(`/dev/pts/\d+`), "its stdin is a terminal: %s", o)
		})

		It("gives the agent no controlling terminal under --no-tty", func(ctx SpecContext) {
			o := recordShell(ctx, onTerminal(0), []string{"--no-tty"}, script)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("NO-CTTY"), "the agent can open the caller's terminal: %s", o)
		})

		It("gives the agent no controlling terminal when stdin is not a terminal", func(ctx SpecContext) {
			o := recordShell(ctx, onTerminal(2), nil, script)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stdout).To(ContainSubstring("NO-CTTY"), "the agent can open the caller's terminal: %s", o)
		})
	})
})

// openPty opens a pseudo-terminal pair and returns its terminal end; the
// master stays open until the spec ends (closing it hangs the terminal
// up, which would signal sysgate).
func openPty() *os.File {
	GinkgoHelper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(master.Close)
	Expect(unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0)).To(Succeed())
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	Expect(err).NotTo(HaveOccurred())
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(tty.Close)
	return tty
}
