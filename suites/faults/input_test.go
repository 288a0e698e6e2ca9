package faults_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// writeFile writes a file into dir and returns its path.
func writeFile(dir, name, content string, mode os.FileMode) string {
	GinkgoHelper()
	path := filepath.Join(dir, name)
	Expect(os.WriteFile(path, []byte(content), mode)).To(Succeed())
	return path
}

var _ = Describe("bad input", RequiresAudit, BadInput, func() {
	var dir string

	BeforeEach(func() {
		requireAudit()
		dir = GinkgoT().TempDir()
	})

	// A bad baseline is refused before anything runs: exit 2 and
	// "file:line: message [kind]".
	DescribeTable("a baseline that cannot be loaded: exit 2 naming the file and line",
		func(ctx SpecContext, files map[string]string, want ...string) {
			for name, content := range files {
				writeFile(dir, name, content, 0o644)
			}
			o := sysgate(ctx, "check", "-b", filepath.Join(dir, "a.yaml"), "--", bin.Agent, "loop", "escape", "1")
			Expect(o.Code).To(Equal(cli.ExitUsage), "%s", o)
			for _, w := range want {
				Expect(o.Stderr).To(ContainSubstring(w), "%s", o)
			}
			Expect(o.Stdout).To(BeEmpty(), "no verdict may be printed")
		},
		Entry("malformed YAML", map[string]string{"a.yaml": "version: 1\nsyscalls:\n  x86_64: [read\n"}, "a.yaml:"),
		Entry("an unknown syscall, with a suggestion", map[string]string{
			"a.yaml": "version: 1\nagent: a\nsyscalls:\n  x86_64:\n    - read\n    - getppidd\n",
		}, "a.yaml:6:", "getppidd", "getppid"),
		Entry("an extends cycle", map[string]string{
			"a.yaml": "version: 1\nagent: a\nextends:\n  - b.yaml\nsyscalls:\n  x86_64:\n    - read\n",
			"b.yaml": "version: 1\nextends:\n  - a.yaml\nsyscalls:\n  x86_64:\n    - write\n",
		}, "extends cycle", "a.yaml", "b.yaml"),
		Entry("a missing extends base", map[string]string{
			"a.yaml": "version: 1\nagent: a\nextends:\n  - gone.yaml\nsyscalls:\n  x86_64:\n    - read\n",
		}, "a.yaml:4:", "gone.yaml"),
	)

	It("refuses a missing baseline file, naming it", func(ctx SpecContext) {
		o := sysgate(ctx, "check", "-b", filepath.Join(dir, "gone.yaml"), "--", bin.Agent, "loop", "escape", "1")
		// Bad input, like a missing extends base: exit 2, no verdict.
		Expect(o.Code).To(Equal(cli.ExitUsage), "%s", o)
		Expect(o.Stderr).To(ContainSubstring("gone.yaml: no such file or directory"))
		Expect(o.Stdout).To(BeEmpty(), "no verdict may be printed")
	})

	// A command that is not there is a typo on the command line: bad
	// input (exit 2), naming the command and where it was looked for.
	// One that is there and cannot run keeps sysgate from a verdict.
	DescribeTable("an agent that cannot be started: exit 2 or 3 naming the cause",
		func(ctx SpecContext, command func() string, code int, want string) {
			base := writeFile(dir, "a.yaml", "version: 1\nagent: a\nsyscalls:\n  x86_64:\n    - read\n", 0o644)
			o := sysgate(ctx, "check", "-b", base, "--", command())
			Expect(o.Code).To(Equal(code), "%s", o)
			Expect(o.Stderr).To(ContainSubstring(want), "%s", o)
			Expect(o.Stdout).To(BeEmpty(), "no verdict may be printed")
		},
		Entry("a missing binary", func() string { return filepath.Join(dir, "no-such-agent") }, cli.ExitUsage, "no-such-agent: no such file"),
		Entry("a command not on PATH", func() string { return "sysgate-no-such-command" }, cli.ExitUsage,
			"command not found: sysgate-no-such-command: no executable of that name in the agent's PATH="),
		Entry("a file that is not executable", func() string {
			return writeFile(dir, "agent.sh", "#!/bin/sh\nexit 0\n", 0o644)
		}, cli.ExitInconclusive, "permission denied"),
	)

	// Issue 12: a reader that stops after one line (record ... | head -1)
	// used to see RECORDED before the file existed, and kill sysgate with
	// SIGPIPE before it wrote the file.
	It("record | head -1 leaves a complete, valid baseline every time", func(ctx SpecContext) {
		for i := range 20 {
			out := filepath.Join(dir, fmt.Sprintf("true-%d.yaml", i))
			cmd := exec.CommandContext(ctx, "sh", "-c", `"$0" record -o "$1" -- /bin/true 2>&1 | head -1`, bin.Sysgate, out)
			line, err := cmd.Output()
			Expect(err).NotTo(HaveOccurred(), "run %d: %s", i, line)
			_, err = baseline.Load(out)
			Expect(err).NotTo(HaveOccurred(), "run %d: the baseline after %q", i, line)
		}
	})
})
