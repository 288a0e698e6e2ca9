package faults_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// envBaselines is gatetest.EnvBaselines, spelled out as the action's
// environment spells it.
const envBaselines = "SYSGATE_BASELINES"

// Issue 32, item 6: one gate checks several agents (the action's packages
// mode, make security-test), each against its own baseline in a sibling
// directory. Agent A appends a group to agent B's baseline that allows the
// one syscall B's escape makes; B's next run must not be clean.
var _ = Describe("an agent widening another agent's baseline", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	var root, bFile string
	BeforeEach(func() {
		root = filepath.Join(GinkgoT().TempDir(), "baselines")
		for _, d := range []string{"a", "b"} {
			Expect(os.MkdirAll(filepath.Join(root, d), 0o755)).To(Succeed())
		}
		Expect(os.Chmod(filepath.Dir(root), 0o755)).To(Succeed())
		bFile = filepath.Join(root, "b", "b.yaml")
	})

	// The group agent A writes: sysinfo is the escape of `agent thread`.
	widening := fmt.Sprintf("groups:\n  widened:\n    reason: added by another agent\n    syscalls:\n      %s:\n        - sysinfo\n", scmp.Native())
	native := scmp.Native().String()

	// gateEnv is the environment of a gate over root, as the action sets
	// it for its packages.
	gateEnv := func(cmd *exec.Cmd) {
		cmd.Env = append(os.Environ(), envBaselines+"="+root)
	}

	// recordB records agent B's baseline: `agent thread benign`, all but
	// the sysinfo of its escape.
	recordB := func(ctx SpecContext, b verdict.Backend) []byte {
		GinkgoHelper()
		o := sysgate(ctx, "record", "--backend", string(b), "-o", bFile, "--", bin.Agent, "thread", "benign")
		Expect(o.Code).To(Equal(cli.ExitOK), "record agent B: %s", o)
		data, err := os.ReadFile(bFile)
		Expect(err).NotTo(HaveOccurred())
		// A second groups key would make the file invalid, not wider.
		Expect(string(data)).NotTo(ContainSubstring("\ngroups:"))
		return data
	}

	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		It("refuses agent A's write to agent B's baseline, and B's next run is caught ("+string(backend)+")", func(ctx SpecContext) {
			before := recordB(ctx, backend)
			script := `printf '%s' "$1" >>"$2"`
			a := sysgateWith(ctx, gateEnv, "record", "--backend", string(backend), "-o", filepath.Join(root, "a", "a.yaml"),
				"--", "/bin/sh", "-c", script, "sh", widening, bFile)
			o := sysgateWith(ctx, gateEnv, "check", "--format", "json", "--backend", string(backend), "-b", bFile,
				"--", bin.Agent, "thread", "escape")
			Expect(o.Code).To(Equal(cli.ExitViolation), "agent B's run after agent A's:\n%s\nagent A's run:\n%s", o, a)
			Expect(violationsOf(o.Result())).To(ConsistOf(native+" sysinfo"), "%s", o)
			after, err := os.ReadFile(bFile)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(after)).To(Equal(string(before)), "agent A rewrote agent B's baseline: %s", a)
			Expect(a.Output()).To(ContainSubstring("Read-only file system"), "agent A's write did not fail as read-only: %s", a)
		})

		It("fails the gate naming B's baseline when it changed between two runs ("+string(backend)+")", func(ctx SpecContext) {
			recordB(ctx, backend)
			// The gate of this process (gatetest.Run, as a suite's specs
			// run) over root, made at its first run below.
			GinkgoT().Setenv(envBaselines, root)
			run := func(phase string) *verdict.Result {
				GinkgoHelper()
				agent := harness.Agent{Name: "b", Command: []string{bin.Agent, "thread", phase}}
				r, err := gatetest.Run(ctx, agent, harness.WithBaselines(bFile), harness.WithBackend(backend),
					harness.WithMode(baseline.ModeCheck))
				Expect(err).NotTo(HaveOccurred())
				return r
			}
			first := run("benign")
			Expect(first.Verdict).To(Equal(verdict.VerdictClean), "%s", ci.Summary(first))
			// A write that got past the read-only bind some other way: from
			// outside the run, between the gate's two runs.
			f, err := os.OpenFile(bFile, os.O_APPEND|os.O_WRONLY, 0)
			Expect(err).NotTo(HaveOccurred())
			_, err = f.WriteString(widening)
			Expect(err).NotTo(HaveOccurred())
			Expect(f.Close()).To(Succeed())

			second := run("escape")
			var text strings.Builder
			Expect(ci.WriteText(&text, second, ci.Palette{})).To(Succeed())
			Expect(second.Verdict).To(Equal(verdict.VerdictViolation), "the gate passed a run against a baseline changed since its first run:\n%s", text.String())
			Expect(text.String()).To(ContainSubstring(bFile), "the report does not name the changed file:\n%s", text.String())
		})
	}
})
