package goagent_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/suites/internal/gate"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

const page = "fetched by the go agent\n"

// scenario is the spec of one agent scenario, gated by its own baseline.
func scenario(workspace, name string, extra ...string) gate.Spec {
	argv := append([]string{goagent, "-workspace", workspace, "-scenario", name}, extra...)
	return gate.Spec{Baseline: "goagent/" + name, Command: argv, Dir: workspace}
}

var _ = Describe("The Go agent", labels.RequiresAudit, labels.Agent("goagent"), func() {
	var workspace string

	BeforeEach(func() {
		workspace = gate.NewWorkspace()
	})

	It("starts on a Go runtime that stays within the go runtime base", labels.Runtime, func(ctx SpecContext) {
		spec := scenario(workspace, "none")
		spec.Baseline = "runtimes/go"
		Expect(gate.Run(ctx, spec)).To(gatetest.StayWithinBaseline())
	})

	It("stays within its baseline handling files", func(ctx SpecContext) {
		Expect(gate.Run(ctx, scenario(workspace, "files"))).To(gatetest.StayWithinBaseline())
		Expect(filepath.Join(workspace, "out", "go-report.md")).To(BeARegularFile())
	})

	It("stays within its baseline running git status and sh -c", func(ctx SpecContext) {
		Expect(gate.Run(ctx, scenario(workspace, "exec"))).To(gatetest.StayWithinBaseline())
	})

	It("stays within its baseline fetching from a loopback server", labels.Network, func(ctx SpecContext) {
		url := "http://" + gate.Loopback(page) + "/page"
		Expect(gate.Run(ctx, scenario(workspace, "http", "-url", url))).To(gatetest.StayWithinBaseline())
		Expect(os.ReadFile(filepath.Join(workspace, "fetched-go.txt"))).To(BeEquivalentTo(page))
	})

	// Files: the file task also plants .git/hooks/pre-commit. Its
	// baseline's {workspace}/**: write, learnt by record without a
	// reviewed reason, does not reach a sensitive path; without the files
	// gate (WithoutFiles) the run passes.
	It("fails the gate when the file task also writes a git hook", labels.Bite, func(ctx SpecContext) {
		gate.SkipWhenRecording()
		spec := scenario(workspace, "files+hook")
		spec.Agent, spec.Baseline = "goagent-bite-hook", "goagent/files"
		result := gate.Run(ctx, spec)
		hook := filepath.Join(workspace, ".git", "hooks", "pre-commit")
		Expect(result.FileViolations).To(ContainElement(And(HaveField("Path", hook), HaveField("Op", baseline.FileWrite), HaveField("Sensitive", Not(BeEmpty())))), "%s", result)
		for _, v := range result.FileViolations {
			Expect(v.Path).To(HavePrefix(filepath.Join(workspace, ".git", "hooks")), "only the hook: %s", result)
		}
		Expect(gate.ViolationNames(result)).To(BeEmpty(), "the calls are the file task's")
		Expect(result.ProgramViolations).To(BeEmpty())

		spec.Options = append(spec.Options, harness.WithoutFiles())
		Expect(gate.Run(ctx, spec)).To(gatetest.StayWithinBaseline(), "without the files gate the hook is the hole")
	})

	It("fails the gate when the file task also calls unshare", labels.Bite, func(ctx SpecContext) {
		gate.SkipWhenRecording()
		spec := scenario(workspace, "files+unshare")
		spec.Agent, spec.Baseline = "goagent-bite-unshare", "goagent/files"
		result := gate.Run(ctx, spec)
		Expect(result).NotTo(gatetest.StayWithinBaseline())
		Expect(gate.ViolationNames(result)).To(ContainElement("unshare(CLONE_NEWUTS)"))
		Expect(result.Violations).To(ContainElement(And(HaveField("Syscall", "unshare(CLONE_NEWUTS)"), HaveField("Risk", Not(BeEmpty())))))
	})
})
