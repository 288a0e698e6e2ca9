package faults_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
	"github.com/sysgate/sysgate/verdict"
)

// One baseline, both backends: a user records where they can (without
// root: notify) and checks where the gate runs (a root VM runner:
// audit), or the other way round. A baseline one backend writes must
// therefore pass the same agent on the other: each backend must observe
// and record what the other does (issue 42, item 7). Each spec records
// the agent once on one backend through the CLI, as a user does, and
// checks it once on the other in a fresh workspace; no run is repeated.
var _ = Describe("a baseline recorded on one backend", RequiresAudit, NamesBackend, func() {
	BeforeEach(func() {
		requireAudit()
	})

	// crossAgent is an agent's command line for a workspace, and what
	// it reads on stdin ("" for nothing).
	type crossAgent func(ws string) (argv []string, stdin string)

	// The Python agent's network scenario: no subprocess with a timeout,
	// whose sleep depends on scheduling (another part of issue 42).
	pythonAgent := func() crossAgent {
		python, err := fixture.PythonAgent()
		Expect(err).NotTo(HaveOccurred())
		url := "http://" + gate.Loopback("page\n") + "/page"
		return func(ws string) ([]string, string) {
			return append(slices.Clone(python), "--workspace", ws, "--scenario", "network", "--url", url), ""
		}
	}
	// The Go agent (static) runs git and sh: dynamic programs, whose
	// exec maps the ELF interpreter (ld.so) too.
	goAgent := func() crossAgent {
		agent, err := fixture.BuildGoAgent(gate.AgentTempDir())
		Expect(err).NotTo(HaveOccurred())
		return func(ws string) ([]string, string) {
			return []string{agent, "-workspace", ws, "-scenario", "exec"}, ""
		}
	}
	// The filesystem MCP server, driven over stdio: initialize, list its
	// tools, list the workspace and read a file; it exits at the end of
	// its input.
	mcpServer := func() crossAgent {
		server, err := fixture.NodeServer(fixture.ServerFilesystem)
		Expect(err).NotTo(HaveOccurred())
		return func(ws string) ([]string, string) {
			return append(slices.Clone(server), ws), strings.Join([]string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"sysgate-faults","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"` + ws + `"}}}`,
				`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"` + filepath.Join(ws, "README.md") + `"}}}`,
			}, "\n") + "\n"
		}
	}

	// run is one `sysgate VERB ARGS --backend b --dir ws -- agent`, run
	// once: the agent's fixed environment, its stdin from the agent.
	run := func(ctx context.Context, agent crossAgent, b verdict.Backend, args ...string) outcome {
		GinkgoHelper()
		ws := gate.NewWorkspace()
		argv, stdin := agent(ws)
		args = append(append(args, "--backend", string(b), "--dir", ws, "--"), argv...)
		return sysgateWith(ctx, func(cmd *exec.Cmd) {
			cmd.Env = fixture.AgentEnv(ws)
			cmd.Stdin = strings.NewReader(stdin)
		}, args...)
	}

	DescribeTable("passes the same agent on the other",
		func(ctx SpecContext, agentOf func() crossAgent, from, to verdict.Backend) {
			agent := agentOf()
			base := filepath.Join(GinkgoT().TempDir(), "agent.yaml")
			o := run(ctx, agent, from, "record", "-o", base, "--agent", "cross")
			Expect(o.Code).To(Equal(cli.ExitOK), "record on %s: %s", from, o)
			o = run(ctx, agent, to, "check", "-b", base)
			Expect(o.Code).To(Equal(cli.ExitOK), "recorded on %s, checked on %s: %s", from, to, o)
			Expect(o.Output()).To(ContainSubstring("backend: " + string(to)))
		},
		Entry("the Python agent, recorded on notify, checked on audit", pythonAgent, verdict.BackendNotify, verdict.BackendAudit),
		Entry("the Python agent, recorded on audit, checked on notify", pythonAgent, verdict.BackendAudit, verdict.BackendNotify),
		Entry("the Go agent, recorded on notify, checked on audit", goAgent, verdict.BackendNotify, verdict.BackendAudit),
		Entry("the Go agent, recorded on audit, checked on notify", goAgent, verdict.BackendAudit, verdict.BackendNotify),
		Entry("an MCP server, recorded on notify, checked on audit", mcpServer, verdict.BackendNotify, verdict.BackendAudit),
		Entry("an MCP server, recorded on audit, checked on notify", mcpServer, verdict.BackendAudit, verdict.BackendNotify),
	)
})
