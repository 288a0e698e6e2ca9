package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

// apiPage is what the loopback API the memory server's tool reports to
// answers.
const apiPage = "ok\n"

// call is one tools/call that must succeed.
func call(ctx context.Context, c *mcptest.Client, tool string, args map[string]any) string {
	GinkgoHelper()
	text, err := c.CallText(ctx, tool, args)
	Expect(err).NotTo(HaveOccurred())
	return text
}

func toolNames(ctx context.Context, c *mcptest.Client) []string {
	GinkgoHelper()
	tools, err := c.ListTools(ctx)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

// readOnlySession reads, lists and searches the workspace through the
// filesystem server.
func readOnlySession(ctx context.Context, c *mcptest.Client, workspace string) {
	GinkgoHelper()
	Expect(call(ctx, c, "read_text_file", map[string]any{"path": filepath.Join(workspace, "README.md")})).To(HavePrefix("# demo"))
	Expect(call(ctx, c, "list_directory", map[string]any{"path": workspace})).To(ContainSubstring("[DIR] src"))
	Expect(call(ctx, c, "search_files", map[string]any{"path": workspace, "pattern": "**/*.py"})).To(ContainSubstring("app.py"))
}

var _ = Describe("MCP servers driven over stdio", labels.RequiresAudit, func() {
	var workspace string

	BeforeEach(func() {
		workspace = gate.NewWorkspace()
	})

	It("run on a node that stays within the node runtime base", labels.Runtime, func(ctx SpecContext) {
		node := servers[fixture.ServerFilesystem][0]
		result := gate.Run(ctx, gate.Spec{
			Baseline: "runtimes/node",
			Command:  []string{node, "-e", "require('fs').readdirSync('.')"},
			Dir:      workspace,
		})
		Expect(result).To(gatetest.StayWithinBaseline())
	})

	Describe("@modelcontextprotocol/server-filesystem", labels.Agent("mcp-filesystem"), func() {
		var spec gate.Spec

		BeforeEach(func() {
			spec = gate.Spec{
				Baseline: "mcp/filesystem",
				Command:  append(slices.Clone(servers[fixture.ServerFilesystem]), workspace),
				Dir:      workspace,
			}
		})

		It("stays within its baseline reading, listing, searching and writing in its allowed directory", func(ctx SpecContext) {
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				Expect(toolNames(ctx, c)).To(ContainElements("read_text_file", "write_file", "list_directory", "search_files"))
				Expect(call(ctx, c, "read_text_file", map[string]any{"path": filepath.Join(workspace, "README.md")})).To(HavePrefix("# demo"))
				Expect(call(ctx, c, "list_directory", map[string]any{"path": workspace})).To(ContainSubstring("[DIR] src"))
				Expect(call(ctx, c, "search_files", map[string]any{"path": workspace, "pattern": "**/*.py"})).To(ContainSubstring("app.py"))
				call(ctx, c, "write_file", map[string]any{"path": filepath.Join(workspace, "summary.md"), "content": "# Summary\n"})
			})
			Expect(result).To(gatetest.StayWithinBaseline())
			Expect(os.ReadFile(filepath.Join(workspace, "summary.md"))).To(BeEquivalentTo("# Summary\n"))
		})

		It("stays within its read-only baseline reading, listing and searching", func(ctx SpecContext) {
			spec.Agent, spec.Baseline = "mcp-filesystem-read", "mcp/filesystem-read"
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				readOnlySession(ctx, c, workspace)
			})
			Expect(result).To(gatetest.StayWithinBaseline())
		})

		// Argument classes: a write is an openat with O_CREAT, which the
		// read-only baseline has only with O_RDONLY. Without the classes
		// the run would pass: openat is in the baseline.
		It("fails the gate when a read-only session writes a file", labels.Bite, func(ctx SpecContext) {
			gate.SkipWhenRecording()
			spec.Agent, spec.Baseline = "mcp-filesystem-bite-write", "mcp/filesystem-read"
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				readOnlySession(ctx, c, workspace)
				call(ctx, c, "write_file", map[string]any{"path": filepath.Join(workspace, "exfil.md"), "content": "# taken\n"})
			})
			Expect(result.Violations).To(ContainElement(And(
				HaveField("Syscall", "openat(create)"),
				HaveField("Allowed", ContainElement("openat(read)")),
			)))
			Expect(filepath.Join(workspace, "exfil.md")).To(BeARegularFile())
		})

		// Files: a prompt-injected session reads notes.md, a symlink in
		// the allowed directory to the user's SSH key. The server checks
		// the link's real path against its allowed directories (here the
		// workspace and the home: a user who shares both) and reads it;
		// the files gate sees the key, as the kernel resolved the name.
		// Without the files gate (WithoutFiles) the run passes.
		It("fails the gate when a read-only session reads a key through a symlink", labels.Bite, func(ctx SpecContext) {
			gate.SkipWhenRecording()
			home, key := gate.KeyHome()
			link := filepath.Join(workspace, "notes.md")
			Expect(os.Symlink(key, link)).To(Succeed())
			spec.Agent, spec.Baseline = "mcp-filesystem-bite-symlink", "mcp/filesystem-read"
			spec.Command = append(slices.Clone(servers[fixture.ServerFilesystem]), workspace, home)
			spec.Env = gate.WithHome(fixture.AgentEnv(workspace), home)
			session := func(ctx context.Context, c *mcptest.Client) {
				readOnlySession(ctx, c, workspace)
				Expect(call(ctx, c, "read_text_file", map[string]any{"path": link})).To(ContainSubstring("OPENSSH PRIVATE KEY"))
			}
			result := gate.RunMCP(ctx, spec, session)
			Expect(result.FileViolations).To(ConsistOf(And(
				HaveField("Path", key), HaveField("Op", baseline.FileRead), HaveField("Sensitive", "ssh key"))), "only the key: %s", result)
			Expect(gate.ViolationNames(result)).To(BeEmpty(), "the calls are the read-only session's")
			Expect(result.ProgramViolations).To(BeEmpty())

			spec.Options = append(spec.Options, harness.WithoutFiles())
			Expect(gate.RunMCP(ctx, spec, session)).To(gatetest.StayWithinBaseline(), "without the files gate the key read is the hole")
		})

		It("fails the gate when asked to move a file", labels.Bite, func(ctx SpecContext) {
			gate.SkipWhenRecording()
			spec.Agent = "mcp-filesystem-bite-move"
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				call(ctx, c, "read_text_file", map[string]any{"path": filepath.Join(workspace, "notes.txt")})
				call(ctx, c, "move_file", map[string]any{
					"source":      filepath.Join(workspace, "notes.txt"),
					"destination": filepath.Join(workspace, "notes-moved.txt"),
				})
			})
			Expect(result).NotTo(gatetest.StayWithinBaseline())
			Expect(gate.ViolationNames(result)).To(ContainElement(BeElementOf("rename", "renameat", "renameat2")))
			Expect(filepath.Join(workspace, "notes-moved.txt")).To(BeARegularFile())
		})
	})

	Describe("@modelcontextprotocol/server-memory", labels.Agent("mcp-memory"), func() {
		var spec gate.Spec
		var store string

		BeforeEach(func() {
			store = filepath.Join(workspace, "memory.jsonl")
			spec = gate.Spec{
				Baseline: "mcp/memory",
				Command:  servers[fixture.ServerMemory],
				Dir:      workspace,
				Env:      append(fixture.AgentEnv(workspace), "MEMORY_FILE_PATH="+store),
			}
		})

		It("stays within its baseline building and reading a knowledge graph", func(ctx SpecContext) {
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				Expect(toolNames(ctx, c)).To(ContainElements("create_entities", "read_graph"))
				call(ctx, c, "create_entities", map[string]any{"entities": []map[string]any{
					{"name": "sysgate", "entityType": "project", "observations": []string{"gates syscalls"}},
					{"name": "seccomp", "entityType": "kernel feature", "observations": []string{"filters syscalls"}},
				}})
				call(ctx, c, "create_relations", map[string]any{"relations": []map[string]any{
					{"from": "sysgate", "to": "seccomp", "relationType": "uses"},
				}})
				Expect(call(ctx, c, "read_graph", nil)).To(And(ContainSubstring("gates syscalls"), ContainSubstring("uses")))
				Expect(call(ctx, c, "search_nodes", map[string]any{"query": "kernel"})).To(ContainSubstring("seccomp"))
			})
			Expect(result).To(gatetest.StayWithinBaseline())
			Expect(os.ReadFile(store)).To(ContainSubstring(`"sysgate"`))
		})

		// Network: a server whose tool call reports to its API (a preload
		// stands in for the tool's own client: it connects before each
		// read of the store, which read_graph does). Its baseline,
		// mcp/memory-api, has the API's loopback address; the bite sends
		// to a second one. The calls are the same, so only the network
		// gate sees it, and without it the run passes.
		apiSpec := func(api string) gate.Spec {
			GinkgoHelper()
			host, port, _ := strings.Cut(api, ":")
			preload := filepath.Join(workspace, "api-client.cjs")
			Expect(os.WriteFile(preload, []byte(`const net = require('net');
const fsp = require('fs').promises;
const readFile = fsp.readFile;
fsp.readFile = async function (...args) {
  await new Promise((resolve, reject) => {
    const s = net.connect({ host: process.env.API_HOST, port: Number(process.env.API_PORT) }, () => s.end('GET /page HTTP/1.0\r\n\r\n'));
    s.on('close', resolve);
    s.on('error', reject);
    s.resume();
  });
  return readFile.apply(this, args);
};
`), 0o644)).To(Succeed())
			s := spec
			s.Baseline, s.Agent = "mcp/memory-api", "mcp-memory-api"
			s.Env = append(slices.Clone(spec.Env), "NODE_OPTIONS=--require "+preload, "API_HOST="+host, "API_PORT="+port)
			return s
		}
		readGraph := func(ctx context.Context, c *mcptest.Client) {
			Expect(call(ctx, c, "read_graph", nil)).To(ContainSubstring("entities"))
		}

		It("stays within its baseline when its tool call reports to its API on loopback", labels.Network, func(ctx SpecContext) {
			result := gate.RunMCP(ctx, apiSpec(gate.Loopback(apiPage)), readGraph)
			Expect(result).To(gatetest.StayWithinBaseline())
		})

		It("fails the gate when a tool call connects to another host", labels.Bite, labels.Network, func(ctx SpecContext) {
			gate.SkipWhenRecording()
			s := apiSpec(gate.LoopbackAt("127.0.0.2", apiPage))
			s.Agent = "mcp-memory-bite-connect"
			result := gate.RunMCP(ctx, s, readGraph)
			Expect(result.NetworkViolations).To(ConsistOf(And(
				HaveField("Op", baseline.NetConnect), HaveField("Dest", HavePrefix("127.0.0.2:")),
				HaveField("Program", HaveSuffix("/node")))), "only the second host: %s", result)
			Expect(gate.ViolationNames(result)).To(BeEmpty(), "the calls are the API client's")
			Expect(result.ProgramViolations).To(BeEmpty())
			Expect(result.FileViolations).To(BeEmpty())

			s.Options = append(s.Options, harness.WithoutNetwork())
			Expect(gate.RunMCP(ctx, s, readGraph)).To(gatetest.StayWithinBaseline(), "without the network gate the second host is the hole")
		})

		// Programs: a server whose tool call shells out. The preload
		// stands in for a tool implementation that runs a command line
		// through /bin/sh -c as it loads its store (read_graph reads it);
		// node's own module loads, which read through the same function
		// (about 170 before initialize), spawn nothing, or the session
		// waits on them.
		It("fails the gate when a tool call spawns /bin/sh -c", labels.Bite, func(ctx SpecContext) {
			gate.SkipWhenRecording()
			preload := filepath.Join(gate.AgentTempDir(), "shell-tool.cjs")
			Expect(os.WriteFile(preload, []byte(`const fsp = require('fs').promises;
const { execFileSync } = require('child_process');
const readFile = fsp.readFile;
fsp.readFile = function (...args) {
  if (!/(\.[cm]?js|package\.json)$/.test(String(args[0]))) {
    execFileSync('/bin/sh', ['-c', 'id > /dev/null']);
  }
  return readFile.apply(this, args);
};
`), 0o644)).To(Succeed())
			spec.Agent = "mcp-memory-bite-shell"
			spec.Env = append(spec.Env, "NODE_OPTIONS=--require "+preload)
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				Expect(call(ctx, c, "read_graph", nil)).To(ContainSubstring("entities"))
			})
			Expect(result.ProgramViolations).To(ContainElement(And(
				HaveField("Path", HaveSuffix("sh")),
				HaveField("Requested", "/bin/sh"),
				HaveField("Argv", HaveExactElements("/bin/sh", "-c", "id > /dev/null")),
				HaveField("Parent", HaveSuffix("/node")),
				HaveField("Risk", risk.Shell),
				HaveField("Level", risk.High),
			)))
			Expect(result.ProgramViolations).To(ContainElement(HaveField("Path", "/usr/bin/id")))
			Expect(result).NotTo(gatetest.StayWithinBaseline())
		})

		// The same server with a compromised dependency, simulated by a
		// module node preloads: it runs a shell command on start.
		It("fails the gate when a compromised dependency spawns a shell", labels.Bite, func(ctx SpecContext) {
			gate.SkipWhenRecording()
			preload := filepath.Join(gate.AgentTempDir(), "preload.cjs")
			Expect(os.WriteFile(preload, []byte("require('child_process').execFileSync('/bin/sh', ['-c', 'id > /dev/null']);\n"), 0o644)).To(Succeed())
			spec.Agent = "mcp-memory-bite-spawn"
			spec.Env = append(spec.Env, "NODE_OPTIONS=--require "+preload)
			result := gate.RunMCP(ctx, spec, func(ctx context.Context, c *mcptest.Client) {
				Expect(call(ctx, c, "read_graph", nil)).To(ContainSubstring("entities"))
			})
			Expect(result).NotTo(gatetest.StayWithinBaseline())
			// node links the child's stdio through socket pairs (its fork
			// is a clone(none), as its threads are), the shell waits for id
			Expect(gate.ViolationSyscalls(result)).To(ContainElements("socketpair", "wait4"))
			Expect(result.Processes).To(ContainElement(HaveField("Exe", HaveSuffix("/id"))))
		})
	})
})
