package python_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
	"github.com/sysgate/sysgate/suites/internal/labels"
	"github.com/sysgate/sysgate/verdict"
)

const page = "fetched from loopback\n"

// agentInterpreter is the interpreter that runs the agent, symlinks
// resolved, as the program gate names it.
func agentInterpreter() string {
	GinkgoHelper()
	p, err := filepath.EvalSymlinks(agent[0])
	Expect(err).NotTo(HaveOccurred())
	return p
}

// networkScenario is the network scenario fetching from server
// (host:port, a loopback address) by name: the spec's own DNS server
// gives name that address (the run's forwarder asks it), so the agent
// resolves a name as a real one does, and nothing leaves the machine.
//
// Where runs cannot record names (the notify backend without root) the
// agent fetches by address: its lookup would go to the machine's
// resolver, which does not know the spec's name.
func networkScenario(workspace, name, server string) gate.Spec {
	GinkgoHelper()
	if !gate.NamesRecorded() {
		return scenario(workspace, "network", "--url", "http://"+server+"/page")
	}
	host, port, _ := strings.Cut(server, ":")
	spec := scenario(workspace, "network", "--url", "http://"+name+":"+port+"/page")
	spec.Options = append(spec.Options, harness.WithResolvers(gate.Resolver(map[string]string{name: host})))
	return spec
}

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

	It("stays within its baseline fetching a URL from a loopback server by name", labels.Network, func(ctx SpecContext) {
		result := gate.Run(ctx, networkScenario(workspace, "api.sysgate.test", gate.Loopback(page)))
		Expect(result).To(gatetest.StayWithinBaseline())
		if gate.NamesRecorded() {
			Expect(result.Names).To(ContainElement(HaveField("Name", "api.sysgate.test")))
		} else {
			Expect(result.NamesUnrecorded).To(ContainSubstring("port 53"))
		}
		Expect(os.ReadFile(filepath.Join(workspace, "fetched.txt"))).To(BeEquivalentTo(page))
	})

	It("stays within its baseline asking a local service over a Unix socket", func(ctx SpecContext) {
		result := gate.Run(ctx, scenario(workspace, "ipc", "--connect", gate.UnixLoopback(workspace, page)))
		Expect(result).To(gatetest.StayWithinBaseline())
	})

	It("stays within its baseline unsharing a subprocess's file table", func(ctx SpecContext) {
		result := gate.Run(ctx, scenario(workspace, "isolate"))
		Expect(result).To(gatetest.StayWithinBaseline())
	})

	It("stays within its baseline fetching a URL with its own download tool", labels.Network, func(ctx SpecContext) {
		result := gate.Run(ctx, scenario(workspace, "fetch", "--url", "http://"+gate.Loopback(page)+"/page", "--fetch-tool", fetchTool))
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
			Expect(gate.ViolationSyscalls(result)).To(ContainElements("socket", "connect"))
		})

		// Network: the network scenario's own fetch, from a second
		// loopback address. The same calls and classes (socket(AF_INET),
		// connect) as the well-behaved run, to a host its baseline does
		// not list (127.0.0.1:{port}): only the network gate sees it, and
		// without it (WithoutNetwork) the run passes.
		It("fails a network agent that fetches from a second host", labels.Network, func(ctx SpecContext) {
			spec := networkScenario(workspace, "api.sysgate.test", gate.LoopbackAt("127.0.0.2", page))
			spec.Agent = "python-bite-second-host"
			result := gate.Run(ctx, spec)
			Expect(result.NetworkViolations).To(ConsistOf(And(
				HaveField("Op", baseline.NetConnect), Or(And(HaveField("Dest", HavePrefix("api.sysgate.test:")), HaveField("Addr", "127.0.0.2")), HaveField("Dest", HavePrefix("127.0.0.2:"))),
				HaveField("Has", ContainSubstring("127.0.0.1:{port}")))), "only the second host: %s", result)
			Expect(gate.ViolationNames(result)).To(BeEmpty(), "the calls are the network task's")
			Expect(result.ProgramViolations).To(BeEmpty())
			Expect(result.FileViolations).To(BeEmpty())

			spec.Options = append(spec.Options, harness.WithoutNetwork())
			Expect(gate.Run(ctx, spec)).To(gatetest.StayWithinBaseline(), "without the network gate the second host is the hole")
		})

		// Names: the same fetch from the same loopback server, by a name
		// the spec's own DNS server gives it. The connect is allowed (by
		// its address); the lookup is a destination of its own.
		It("fails a network agent that looks up a name its baseline does not list", labels.Network, func(ctx SpecContext) {
			gate.RequireNames()
			spec := networkScenario(workspace, "page.sysgate.test", gate.Loopback(page))
			spec.Agent = "python-bite-name"
			result := gate.Run(ctx, spec)
			Expect(result.NetworkViolations).To(ConsistOf(And(
				HaveField("Op", baseline.NetResolve), HaveField("Dest", "page.sysgate.test"))), "only the lookup: %s", result)
			Expect(result.Names).To(ContainElement(And(HaveField("Name", "page.sysgate.test"), HaveField("Addrs", ContainElement("127.0.0.1")))))
			Expect(gate.ViolationNames(result)).To(BeEmpty())
			Expect(os.ReadFile(filepath.Join(workspace, "fetched.txt"))).To(BeEquivalentTo(page))

			spec.Options = append(spec.Options, harness.WithoutNetwork())
			Expect(gate.Run(ctx, spec)).To(gatetest.StayWithinBaseline(), "without the network gate the lookup is unseen")
		})

		// Files: the read_file tool on the user's SSH key instead of the
		// workspace. The same calls and classes (openat(read)) as the
		// well-behaved run: only the files gate sees it, and without it
		// (WithoutFiles) the run passes.
		It("fails a read-only agent that reads the user's SSH key", func(ctx SpecContext) {
			home, key := gate.KeyHome()
			spec := scenario(workspace, "read-only+key")
			spec.Agent, spec.Baseline = "python-bite-key", "python/read-only"
			spec.Env = gate.WithHome(fixture.AgentEnv(workspace), home)
			result := gate.Run(ctx, spec)
			Expect(result.FileViolations).To(ConsistOf(And(
				HaveField("Path", key), HaveField("Op", baseline.FileRead), HaveField("Sensitive", "ssh key"))), "only the key: %s", result)
			Expect(gate.ViolationNames(result)).To(BeEmpty(), "the calls are the read-only task's")
			Expect(result.ProgramViolations).To(BeEmpty())

			spec.Options = append(spec.Options, harness.WithoutFiles())
			Expect(gate.Run(ctx, spec)).To(gatetest.StayWithinBaseline(), "without the files gate the key read is the hole")
		})

		It("fails a read-only agent whose subprocess calls unshare", func(ctx SpecContext) {
			spec := scenario(workspace, "read-only+unshare")
			spec.Agent, spec.Baseline = "python-bite-unshare", "python/read-only"
			result := gate.Run(ctx, spec)
			Expect(result).NotTo(gatetest.StayWithinBaseline())
			Expect(gate.ViolationSyscalls(result)).To(ContainElement("unshare"))
			// and flags it as risky (a namespace change)
			Expect(result.Violations).To(ContainElement(And(
				HaveField("Syscall", BeElementOf("unshare", "unshare(CLONE_NEWUTS)")), HaveField("Risk", Not(BeEmpty())))))
		})

		// Argument classes: the same syscalls as the well-behaved run,
		// with other arguments. Without the classes these runs are clean,
		// and each spec fails on its first expectation.
		It("fails an agent that talks TCP where its baseline has only Unix sockets", labels.Network, func(ctx SpecContext) {
			spec := scenario(workspace, "ipc", "--connect", gate.Loopback(page))
			spec.Agent, spec.Baseline = "python-bite-inet", "python/ipc"
			result := gate.Run(ctx, spec)
			Expect(result.Violations).To(ContainElement(And(
				HaveField("Syscall", "socket(AF_INET)"),
				HaveField("Allowed", ConsistOf("socket(AF_UNIX)")),
				WithTransform(func(v verdict.Violation) string { return v.String() }, ContainSubstring("socket(AF_INET) (41): the baseline allows socket(AF_UNIX)")),
			)))
			Expect(gate.ViolationNames(result)).To(ConsistOf("socket(AF_INET)"))
		})

		// Programs: the same download through the system's curl, the
		// binary the agent's own tool is a copy of. Its syscalls are the
		// tool's, so only the program gate sees it; without it the run is
		// clean and the spec fails on its first expectation.
		It("fails an agent that runs curl where its baseline lists only its own download tool", labels.Network, func(ctx SpecContext) {
			spec := scenario(workspace, "fetch", "--url", "http://"+gate.Loopback(page)+"/page", "--fetch-tool", "/usr/bin/curl")
			spec.Agent = "python-bite-curl"
			result := gate.Run(ctx, spec)
			Expect(result.ProgramViolations).To(ContainElement(And(
				HaveField("Path", "/usr/bin/curl"),
				HaveField("Parent", HaveSuffix("/"+filepath.Base(agentInterpreter()))),
				HaveField("Risk", risk.Downloader),
				HaveField("Argv", HaveExactElements("/usr/bin/curl", "-sS", "--noproxy", "*", "-o", "fetched.txt", ContainSubstring("/page"))),
				HaveField("File", HaveSuffix("python/fetch.yaml")),
			)))
			Expect(result).NotTo(gatetest.StayWithinBaseline())
			Expect(gate.ViolationNames(result)).To(BeEmpty(), "the syscalls are the allowed tool's")
		})

		It("fails an agent whose subprocess makes a user namespace where the baseline unshares only its file table", func(ctx SpecContext) {
			spec := scenario(workspace, "isolate+userns")
			spec.Agent, spec.Baseline = "python-bite-userns", "python/isolate"
			result := gate.Run(ctx, spec)
			Expect(result.Violations).To(ContainElement(And(
				HaveField("Syscall", "unshare(CLONE_NEWUSER)"),
				HaveField("Allowed", ConsistOf("unshare(none)")),
				HaveField("Risk", risk.Namespace),
				HaveField("Level", risk.High),
			)))
			Expect(gate.ViolationNames(result)).To(ConsistOf("unshare(CLONE_NEWUSER)"))
		})
	})
})
