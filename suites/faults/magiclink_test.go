package faults_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/verdict"
)

// Issue 32, item 3: an exec through the caller's own /proc entry
// (/proc/self/fd/N, /proc/thread-self/fd/N, /dev/fd/N, execveat with
// AT_EMPTY_PATH, a "#!" line naming one, a symlink to one) names, from
// sysgate's side, sysgate's descriptor or nothing. The agent
// (testdata/magiclink.c) runs an execute-only copy of itself that way;
// the programs list has the agent and its script, never the copy.
// Item 8: without root, the launcher's /proc entries are closed to
// sysgate, so its relative names resolve from the directory sysgate
// told it to start in.

// asNobody runs sysgate itself as nobody (the notify backend without
// root), where the agent's non-dumpable processes are closed to it.
func asNobody(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

// pinPrograms replaces the programs list of the baseline at path.
func pinPrograms(path string, programs ...string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	list := "programs:\n"
	for _, p := range programs {
		list += "  - " + p + "\n"
	}
	re := regexp.MustCompile(`(?s)programs:\n.*?(syscalls:)`)
	Expect(re.Match(data)).To(BeTrue(), "no programs section in %s", data)
	Expect(os.WriteFile(path, re.ReplaceAll(data, []byte(list+"$1")), 0o644)).To(Succeed())
}

// workDir makes the agent's directory, DIR/work, in a fresh DIR that
// only root writes (baselines go there), with symlinks resolved: programs
// are listed that way.
func workDir() string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	dir, err := filepath.EvalSymlinks(dir)
	Expect(err).NotTo(HaveOccurred())
	work := filepath.Join(dir, "work")
	Expect(os.Mkdir(work, 0o755)).To(Succeed())
	return work
}

var _ = Describe("an agent that execs through a magic link", RequiresAudit, NamesBackend, Escape, func() {
	// work: the agent's directory (nobody may write it); base: the
	// baseline, in a directory only root writes.
	var work, base string

	BeforeEach(func() {
		requireAudit()
		work = workDir()
		Expect(os.Chown(work, 65534, 65534)).To(Succeed())
		base = filepath.Join(filepath.Dir(work), "magic.yaml")
	})

	// record learns the benign run (every call of the attack but its
	// last exec) on backend, with the agent as nobody or root.
	record := func(ctx context.Context, backend, user string) {
		GinkgoHelper()
		o := sysgate(ctx, "record", "--backend", backend, "--user", user, "--agent", "magic", "-o", base, "--", bin.MagicLink, "benign", work)
		Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
		pinPrograms(base, bin.MagicLink, filepath.Join(work, "script"))
	}

	DescribeTable("names the program it ran in check, and enforce refuses it",
		func(ctx SpecContext, backend, mode string, nobody bool) {
			user, setup := "root", func(*exec.Cmd) {}
			if nobody {
				user, setup = "65534:65534", asNobody
			}
			record(ctx, backend, user)
			payload := filepath.Join(work, "payload")
			for _, gate := range []string{"check", "enforce"} {
				args := []string{gate, "--format", "json", "--backend", backend, "-b", base}
				if !nobody {
					args = append(args, "--user", "root")
				}
				o := sysgateWith(ctx, setup, append(args, "--", bin.MagicLink, mode, work)...)
				r := o.Result()
				Expect(r.Violations).To(BeEmpty(), "%s %s: only the program is new: %s", gate, mode, o)
				if gate == "check" && mode == "symlink" && o.Code == cli.ExitInconclusive {
					// Through a symlink sysgate cannot follow the path as
					// the caller: the program is named only if /proc
					// shows it before it exits; never a clean run.
					Expect(r.Inconclusive).To(ContainSubstring(filepath.Join(work, "link")), "%s", o)
					continue
				}
				Expect(o.Code).To(Equal(cli.ExitViolation), "%s %s: %s", gate, mode, o)
				switch {
				case gate == "enforce" && mode == "symlink":
					// Refused unresolved: named by the path it gave.
					Expect(r.ProgramViolations).To(ContainElement(And(HaveField("Path", filepath.Join(work, "link")), HaveField("Mismatch", ContainSubstring("magic link")))), "%s", o)
				default:
					Expect(r.ProgramViolations).To(ContainElement(HaveField("Path", payload)), "%s %s: %s", gate, mode, o)
				}
				if gate == "enforce" {
					Expect(r.ExitStatus).NotTo(BeZero(), "enforce let the payload run: %s", o)
				}
			}
		},
		Entry("audit: /proc/self/fd/N", "audit", "proc-self", false),
		Entry("audit: /proc/thread-self/fd/N", "audit", "thread-self", false),
		Entry("audit: /dev/fd/N", "audit", "dev-fd", false),
		Entry("audit: execveat(N, \"\", AT_EMPTY_PATH)", "audit", "empty-path", false),
		Entry("audit: #!/proc/self/fd/N", "audit", "shebang", false),
		Entry("audit: a symlink to /proc/self/fd/N", "audit", "symlink", false),
		Entry("notify: /proc/self/fd/N", "notify", "proc-self", false),
		Entry("notify: /proc/thread-self/fd/N", "notify", "thread-self", false),
		Entry("notify: /dev/fd/N", "notify", "dev-fd", false),
		Entry("notify: execveat(N, \"\", AT_EMPTY_PATH)", "notify", "empty-path", false),
		Entry("notify: #!/proc/self/fd/N", "notify", "shebang", false),
		Entry("notify: a symlink to /proc/self/fd/N", "notify", "symlink", false),
		Entry("notify without root: /proc/self/fd/N", "notify", "proc-self", true),
		Entry("notify without root: #!/proc/self/fd/N", "notify", "shebang", true),
		Entry("notify without root: a symlink to /proc/self/fd/N", "notify", "symlink", true),
	)
})

var _ = Describe("a relative command under notify without root", RequiresAudit, NamesBackend, func() {
	var work string

	BeforeEach(func() {
		requireAudit()
		work = workDir()
	})

	// Named at the exec (Requested "./x"), not only afterwards from /proc
	// (which has no requested path, and misses a program that exits at
	// once: the run is then inconclusive). Five runs: a short program
	// must never depend on the watcher's luck.
	It("resolves ./x from the directory it starts in: every run conclusive, ./x named at its exec", func(ctx SpecContext) {
		data, err := os.ReadFile(bin.MagicLink)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(work, "x"), data, 0o755)).To(Succeed())
		base := filepath.Join(filepath.Dir(work), "x.yaml")
		o := sysgate(ctx, "record", "--backend", "notify", "--user", "65534:65534", "--dir", work, "-o", base, "--", "./x")
		Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
		for range 5 {
			o := sysgateWith(ctx, asNobody, "check", "--format", "json", "--backend", "notify", "--dir", work, "-b", base, "--", "./x")
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Result().Programs).To(ContainElement(And(HaveField("Path", filepath.Join(work, "x")), HaveField("Requested", "./x"))), "%s", o)
		}
	})

	It("lists the script operand of python3 agent.py", func(ctx SpecContext) {
		Expect(os.WriteFile(filepath.Join(work, "agent.py"), []byte("print('hi')\n"), 0o644)).To(Succeed())
		// The system python: nobody may not reach a python under /root.
		py := "/usr/bin/python3"
		base := filepath.Join(filepath.Dir(work), "py.yaml")
		o := sysgate(ctx, "record", "--backend", "notify", "--user", "65534:65534", "--dir", work, "-o", base, "--", py, "agent.py")
		Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
		o = sysgateWith(ctx, asNobody, "check", "--format", "json", "--backend", "notify", "--dir", work, "-b", base, "--", py, "agent.py")
		r := o.Result()
		Expect(r.Verdict).NotTo(Equal(verdict.VerdictInconclusive), "%s", o)
		Expect(r.Programs).To(ContainElement(And(HaveField("Path", filepath.Join(work, "agent.py")), HaveField("Role", verdict.RoleScript))), "%s", o)
	})
})
