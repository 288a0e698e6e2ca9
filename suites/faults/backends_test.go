package faults_test

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
	"github.com/sysgate/sysgate/verdict"
)

// The two backends are two ways of seeing the same calls: recorded through
// either, a workload must come out with the same syscalls. A backend that
// missed a call (or made one up) would learn a different baseline.
var _ = Describe("the audit and notify backends", RequiresAudit, func() {
	BeforeEach(func() {
		requireAudit()
	})

	// agree records the workload once per backend and fails naming the
	// difference unless both learn the same syscalls: what record writes,
	// i.e. without the built-in scheduling group (package
	// baseline/scheduling), whose calls appear in a run or not by
	// scheduling alone and which every check allows (node yielded in
	// every audit run and no notify run of a loaded machine). The
	// explicit-call spec below shows each backend sees those calls.
	agree := func(what string, record func(verdict.Backend) *verdict.Result) {
		GinkgoHelper()
		audit, notify := record(verdict.BackendAudit), record(verdict.BackendNotify)
		Expect(audit.Backend).To(Equal(verdict.BackendAudit))
		Expect(notify.Backend).To(Equal(verdict.BackendNotify))
		for _, r := range []*verdict.Result{audit, notify} {
			// Record mode: syscalls beyond the base are what it learns.
			Expect(r.Conclusive() && r.ExitStatus == 0).To(BeTrue(), "%s on %s: %s", what, r.Backend, ci.Summary(r))
		}
		_, a := scheduling.Split(audit.Observed.Names(audit.Arch))
		_, n := scheduling.Split(notify.Observed.Names(notify.Arch))
		Expect(minus(a, n)).To(BeEmpty(), "%s: syscalls only audit saw (notify only: %v)", what, minus(n, a))
		Expect(minus(n, a)).To(BeEmpty(), "%s: syscalls only notify saw", what)
		GinkgoWriter.Printf("%s: %d syscalls on both backends\n", what, len(a))
	}
	recordOpts := func(b verdict.Backend) []harness.Option {
		return []harness.Option{harness.WithBackend(b), harness.WithMode(baseline.ModeRecord)}
	}

	// The network scenario, then the read-only one, whose subprocesses
	// (subprocess.run with a timeout, which sleeps only when the child
	// is slower than its parent, and each backend slows the two
	// differently) make clock_nanosleep in some runs and not others: the
	// scheduling group's, so both backends still learn the same.
	It("see the same syscalls of the Python agent", func(ctx SpecContext) {
		python, err := fixture.PythonAgent()
		Expect(err).NotTo(HaveOccurred())
		url := "http://" + gate.Loopback("page\n") + "/page"
		agree("python agent", func(b verdict.Backend) *verdict.Result {
			ws := gate.NewWorkspace()
			argv := append(slices.Clone(python), "--workspace", ws, "--scenario", "network", "--url", url)
			return gate.Run(ctx, gate.Spec{Baseline: "python/network", Command: argv, Dir: ws, Options: recordOpts(b)})
		})
	})

	It("see the same syscalls of the Python agent's subprocesses", func(ctx SpecContext) {
		python, err := fixture.PythonAgent()
		Expect(err).NotTo(HaveOccurred())
		agree("python agent, read-only", func(b verdict.Backend) *verdict.Result {
			ws := gate.NewWorkspace()
			argv := append(slices.Clone(python), "--workspace", ws, "--scenario", "read-only")
			return gate.Run(ctx, gate.Spec{Baseline: "python/read-only", Command: argv, Dir: ws, Options: recordOpts(b)})
		})
	})

	It("see the same syscalls of an MCP server driven over stdio", func(ctx SpecContext) {
		server, err := fixture.NodeServer(fixture.ServerFilesystem)
		Expect(err).NotTo(HaveOccurred())
		agree("mcp filesystem server", func(b verdict.Backend) *verdict.Result {
			ws := gate.NewWorkspace()
			spec := gate.Spec{Baseline: "mcp/filesystem", Command: append(slices.Clone(server), ws), Dir: ws, Options: recordOpts(b)}
			return gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				_, err := c.ListTools(ctx)
				Expect(err).NotTo(HaveOccurred())
			})
		})
	})

	// What agree leaves to the scheduling group, each backend sees when a
	// program makes it for certain: sched_yield and clock_nanosleep
	// (time.sleep) from Python.
	It("see an explicit call of each scheduling-dependent syscall", func(ctx SpecContext) {
		python, err := fixture.PythonAgent()
		Expect(err).NotTo(HaveOccurred())
		for _, b := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
			ws := gate.NewWorkspace()
			r := gate.Run(ctx, gate.Spec{Baseline: "python/read-only", Agent: "scheduling",
				Command: []string{python[0], "-c", "import os, time; os.sched_yield(); time.sleep(0.001)"}, Dir: ws, Options: recordOpts(b)})
			Expect(r.Conclusive() && r.ExitStatus == 0).To(BeTrue(), "%s: %s", b, ci.Summary(r))
			Expect(r.Observed.Names(r.Arch)).To(ContainElements("sched_yield", "clock_nanosleep"), "%s", b)
		}
	})

	// Without optional locks, as the Python agent runs it: a git status
	// in a workspace committed within the same second refreshes the
	// racily clean index (openat, write, rename) or gives up its lock
	// (unlink) by file timestamps, real file writes that are no
	// scheduling and that a three-pair retry used to hide.
	It("see the same syscalls of git status", func(ctx SpecContext) {
		agree("git status", func(b verdict.Backend) *verdict.Result {
			ws := gate.NewWorkspace()
			return gate.Run(ctx, gate.Spec{Baseline: "python/read-only", Agent: "git", Command: []string{"git", "status", "--porcelain"}, Dir: ws,
				Env: append(fixture.AgentEnv(ws), "GIT_OPTIONAL_LOCKS=0"), Options: recordOpts(b)})
		})
	})

	It("see the same syscalls of a shell pipeline", func(ctx SpecContext) {
		agree("shell pipeline", func(b verdict.Backend) *verdict.Result {
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
