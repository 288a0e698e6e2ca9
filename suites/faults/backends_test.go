package faults_test

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/harness/mcptest"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
)

// The two backends are two ways of seeing the same calls: recorded through
// either, a workload must come out with the same syscalls. A backend that
// missed a call (or made one up) would learn a different baseline.
var _ = Describe("the audit and notify backends", RequiresAudit, func() {
	BeforeEach(func() {
		requireAudit()
	})

	// agree records the workload once per backend, alternating, until a
	// pair agrees exactly (at most three pairs: real programs vary a
	// little from run to run, a futex here, a thread there), and fails
	// naming the difference of every pair otherwise.
	agree := func(what string, record func(harness.Backend) *harness.Result) {
		GinkgoHelper()
		var diffs []string
		for range 3 {
			audit, notify := record(harness.BackendAudit), record(harness.BackendNotify)
			Expect(audit.Backend).To(Equal(harness.BackendAudit))
			Expect(notify.Backend).To(Equal(harness.BackendNotify))
			for _, r := range []*harness.Result{audit, notify} {
				// Record mode: syscalls beyond the base are what it learns.
				Expect(r.Conclusive() && r.ExitStatus == 0).To(BeTrue(), "%s on %s: %s", what, r.Backend, ci.Summary(r))
			}
			a, n := audit.Observed.Names(audit.Arch), notify.Observed.Names(notify.Arch)
			if slices.Equal(a, n) {
				GinkgoWriter.Printf("%s: %d syscalls on both backends\n", what, len(a))
				return
			}
			diffs = append(diffs, fmt.Sprintf("audit only %v, notify only %v", minus(a, n), minus(n, a)))
		}
		Fail(fmt.Sprintf("%s: the backends saw different syscalls in three pairs of runs: %v", what, diffs))
	}
	recordOpts := func(b harness.Backend) []harness.Option {
		return []harness.Option{harness.WithBackend(b), harness.WithMode(baseline.ModeRecord)}
	}

	// The network scenario: its subprocess-free plan keeps the timing out
	// (subprocess.run with a timeout sleeps only when the child is slower
	// than its parent, and each backend slows the two differently);
	// subprocesses are the next two workloads.
	It("see the same syscalls of the Python agent", func(ctx SpecContext) {
		python, err := fixture.PythonAgent()
		Expect(err).NotTo(HaveOccurred())
		url := "http://" + gate.Loopback("page\n") + "/page"
		agree("python agent", func(b harness.Backend) *harness.Result {
			ws := gate.NewWorkspace()
			argv := append(slices.Clone(python), "--workspace", ws, "--scenario", "network", "--url", url)
			return gate.Run(ctx, gate.Spec{Baseline: "python/network", Command: argv, Dir: ws, Options: recordOpts(b)})
		})
	})

	It("see the same syscalls of an MCP server driven over stdio", func(ctx SpecContext) {
		server, err := fixture.NodeServer(fixture.ServerFilesystem)
		Expect(err).NotTo(HaveOccurred())
		agree("mcp filesystem server", func(b harness.Backend) *harness.Result {
			ws := gate.NewWorkspace()
			spec := gate.Spec{Baseline: "mcp/filesystem", Command: append(slices.Clone(server), ws), Dir: ws, Options: recordOpts(b)}
			return gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				_, err := c.ListTools(ctx)
				Expect(err).NotTo(HaveOccurred())
			})
		})
	})

	It("see the same syscalls of git status", func(ctx SpecContext) {
		agree("git status", func(b harness.Backend) *harness.Result {
			ws := gate.NewWorkspace()
			return gate.Run(ctx, gate.Spec{Baseline: "python/read-only", Agent: "git", Command: []string{"git", "status", "--porcelain"}, Dir: ws, Options: recordOpts(b)})
		})
	})

	It("see the same syscalls of a shell pipeline", func(ctx SpecContext) {
		agree("shell pipeline", func(b harness.Backend) *harness.Result {
			ws := gate.NewWorkspace()
			return gate.Run(ctx, gate.Spec{Baseline: "python/read-only", Agent: "pipeline",
				Command: []string{"/bin/sh", "-c", "ls -la . | sort | head -n 3 | wc -l"}, Dir: ws, Options: recordOpts(b)})
		})
	})
})

// minus lists the names of a missing from b (both sorted).
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}
