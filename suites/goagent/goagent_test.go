package goagent_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/harness/gatetest"
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
