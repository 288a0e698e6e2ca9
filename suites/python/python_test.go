package python_test

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/harness/gatetest"
	"github.com/sysgate/sysgate/suites/internal/gate"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

const page = "fetched from loopback\n"

// scenario is the spec of one agent scenario, gated by its own baseline.
func scenario(workspace, name string, extra ...string) gate.Spec {
	argv := append(slices.Clone(agent), "--workspace", workspace, "--scenario", name)
	return gate.Spec{Baseline: "python/" + name, Command: append(argv, extra...), Dir: workspace}
}

var _ = Describe("The Python tool-using agent", labels.RequiresAudit, labels.Agent("python"), func() {
	var workspace string

	BeforeEach(func() {
		workspace = gate.NewWorkspace()
	})

	It("runs on an interpreter that stays within the python3 runtime base", labels.Runtime, func(ctx SpecContext) {
		result := gate.Run(ctx, gate.Spec{
			Baseline: "runtimes/python3",
			Command:  []string{agent[0], "-I", "-B", "-c", "import json, subprocess, urllib.request"},
			Dir:      workspace,
		})
		Expect(result).To(gatetest.StayWithinBaseline())
	})

	It("stays within its baseline reading the workspace and running git status and sh -c", func(ctx SpecContext) {
		result := gate.Run(ctx, scenario(workspace, "read-only"))
		Expect(result).To(gatetest.StayWithinBaseline())
	})

	It("stays within its baseline writing a report", func(ctx SpecContext) {
		result := gate.Run(ctx, scenario(workspace, "write"))
		Expect(result).To(gatetest.StayWithinBaseline())
		Expect(filepath.Join(workspace, "out", "report.md")).To(BeARegularFile())
	})

	It("stays within its baseline fetching a URL from a loopback server", labels.Network, func(ctx SpecContext) {
		result := gate.Run(ctx, scenario(workspace, "network", "--url", "http://"+gate.Loopback(page)+"/page"))
		Expect(result).To(gatetest.StayWithinBaseline())
		Expect(os.ReadFile(filepath.Join(workspace, "fetched.txt"))).To(BeEquivalentTo(page))
	})

	Describe("the gate bites", labels.Bite, func() {
		BeforeEach(gate.SkipWhenRecording)

		// The read-only task plus one new capability, checked against the
		// read-only baseline: the result must be a violation naming it.
		It("fails a read-only agent that opens a socket to a new host", labels.Network, func(ctx SpecContext) {
			spec := scenario(workspace, "read-only+connect", "--connect", gate.Loopback(page))
			spec.Agent, spec.Baseline = "python-bite-connect", "python/read-only"
			result := gate.Run(ctx, spec)
			Expect(result).NotTo(gatetest.StayWithinBaseline())
			Expect(gate.ViolationNames(result)).To(ContainElements("socket", "connect"))
		})

		It("fails a read-only agent whose subprocess calls unshare", func(ctx SpecContext) {
			spec := scenario(workspace, "read-only+unshare")
			spec.Agent, spec.Baseline = "python-bite-unshare", "python/read-only"
			result := gate.Run(ctx, spec)
			Expect(result).NotTo(gatetest.StayWithinBaseline())
			Expect(gate.ViolationNames(result)).To(ContainElement("unshare"))
			// and flags it as risky (a namespace change)
			Expect(result.Violations).To(ContainElement(And(HaveField("Syscall", "unshare"), HaveField("Risk", Not(BeEmpty())))))
		})
	})
})
