package distro_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/labels"
	"github.com/sysgate/sysgate/verdict"
)

// lockedBuffer is a report written by the CLI's goroutines while the
// spec waits.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// sysgateServing runs a sysgate command line in this process as an MCP
// client launches its server: the client on the command's stdin and
// stdout (the agent's, which the CLI passes through), the CLI's report on
// its stderr. session drives the server after the handshake; closing the
// client ends the server's stdin, as the stdio transport does. Returns
// the CLI's exit code and report.
func sysgateServing(ctx context.Context, env, args []string, session func(context.Context, *mcptest.Client)) (int, string) {
	GinkgoHelper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var report lockedBuffer
	c := &cli.Command{Stdin: stdinR, Stdout: stdoutW, Stderr: &report, Env: env}
	exit := make(chan int, 1)
	go func() {
		code := c.Main(append([]string{"sysgate"}, args...))
		// A command that ended before the server read its stdin (a
		// usage error, say) fails the client's writes instead of
		// blocking them.
		stdinR.Close()
		stdoutW.Close()
		exit <- code
	}()
	// However the spec ends, the server's stdin ends, and with it the run.
	DeferCleanup(stdinW.Close)
	client := mcptest.NewClient(stdinW, stdoutR)
	_, err := client.Initialize(ctx, mcptest.Implementation{})
	Expect(err).NotTo(HaveOccurred(), "the handshake through sysgate:\n%s", report.String())
	session(ctx, client)
	Expect(client.Close(ctx)).To(Succeed(), "closing the session:\n%s", report.String())
	code := <-exit
	line := "sysgate"
	for _, a := range args {
		line += " " + ci.ShellQuote(a)
	}
	GinkgoWriter.Printf("$ %s   (an MCP client on its stdin and stdout)\n%s\n", line, report.String())
	return code, report.String()
}

// readSession reads, lists and searches the workspace through the
// filesystem server, as the suites' read-only MCP spec does.
func readSession(ctx context.Context, c *mcptest.Client, workspace string) {
	GinkgoHelper()
	for _, step := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_text_file", map[string]any{"path": filepath.Join(workspace, "README.md")}, "# demo"},
		{"list_directory", map[string]any{"path": workspace}, "[DIR] src"},
		{"search_files", map[string]any{"path": workspace, "pattern": "**/*.py"}, "app.py"},
	} {
		text, err := c.CallText(ctx, step.tool, step.args)
		Expect(err).NotTo(HaveOccurred(), step.tool)
		Expect(text).To(ContainSubstring(step.want), step.tool)
	}
}

// gatedSession runs the read session with server under the gate (opts
// and baselines) and returns the conclusive result of a server that
// exited 0.
func gatedSession(ctx context.Context, server harness.Agent, workspace string, opts []harness.Option, baselines string) *verdict.Result {
	GinkgoHelper()
	result, err := mcptest.Run(ctx, server, func(ctx context.Context, c *mcptest.Client) error {
		readSession(ctx, c, workspace)
		return nil
	}, append(slices.Clone(opts), harness.WithBaselines(baselines))...)
	Expect(err).NotTo(HaveOccurred())
	Expect(result.Conclusive()).To(BeTrue(), "inconclusive: %s", result.Inconclusive)
	Expect(result.ExitStatus).To(Equal(0), "the server failed: %s", result)
	return result
}

// resultText is a result as `sysgate check` prints it.
func resultText(r *verdict.Result) string {
	GinkgoHelper()
	var out bytes.Buffer
	Expect(ci.WriteText(&out, r, ci.Palette{})).To(Succeed())
	GinkgoWriter.Printf("%s\n", out.String())
	return out.String()
}

// The suites' MCP filesystem server in Debian 13 (trixie's own nodejs:
// node 20.19 in libnode, glibc 2.41), driven over stdio by
// ci/mcptest's client with the suites' read-only session, against a
// copy of the suites' baselines: mcp/filesystem-read.yaml extends
// runtimes/node.yaml, which picks {os}/node-{node}.yaml, recorded for
// Debian 12 only.
//
// The layer hint is a CLI command that starts the server, and a server
// does nothing until a client asks: run from a shell, its stdin empty,
// the command records node starting and stopping, and the session's
// check then still fails (getdents64 of list_directory and search_files,
// seen when this suite was written). So the record spec runs the hint's
// command exactly as printed the way an MCP client runs a server
// command, with the same client and session on its stdin and stdout. The
// layer is then written by the CLI's own record (the file the hint
// names, the layer it picks, the root, binds and directory it carries),
// not by a path of the test's, and holds what the session needed beyond
// filesystem-read.yaml in this root; the clean check that follows is the
// proof that it is enough.
var _ = Describe("The MCP filesystem server on Debian 13", Ordered, labels.RequiresAudit, labels.Agent("mcp-filesystem"), func() {
	var root, repo, modules, workspace, readBaseline, runtimeBase, layer, hint string
	var server harness.Agent
	var gated []harness.Option

	BeforeAll(func() {
		root = trixieRoot()
		Expect(filepath.Join(root, "usr", "bin", "node")).To(BeAnExistingFile(), "scripts/rootfs.sh installs nodejs")
		// The pinned server, installed by make deps-suites.
		hostServer, err := fixture.NodeServer(fixture.ServerFilesystem)
		if errors.Is(err, fixture.ErrMissing) {
			testutil.SkipOrFail(GinkgoT(), "deps", err.Error())
		}
		Expect(err).NotTo(HaveOccurred())

		// The suites' node_modules are bound in where the baselines
		// expect them ({repo}/suites/node_modules), so the server's script
		// and packages have the paths the committed baselines name.
		repo, workspace = newRepo()
		modules = filepath.Join(repo, "suites", "node_modules")
		Expect(os.MkdirAll(modules, 0o755)).To(Succeed())
		readBaseline = filepath.Join(repo, "suites", "baselines", "mcp", "filesystem-read.yaml")
		runtimeBase = filepath.Join(repo, "suites", "baselines", "runtimes")
		layer = filepath.Join(runtimeBase, "debian-13", "node-20.yaml")

		script, err := filepath.Rel(filepath.Join(fixture.SuitesDir(), "node_modules"), hostServer[1])
		Expect(err).NotTo(HaveOccurred())
		server = harness.Agent{Name: "mcp-filesystem-read", Dir: workspace, Env: fixture.AgentEnv(workspace),
			Command: []string{"/usr/bin/node", filepath.Join(modules, script), workspace}}
		gated = []harness.Option{harness.WithTimeout(time.Minute), harness.WithRoot(root,
			kernel.BindFile{Source: repo, Target: repo},
			kernel.BindFile{Source: filepath.Join(fixture.SuitesDir(), "node_modules"), Target: modules})}
	})

	It("names the unrecorded layer and the one command that records it", func(ctx SpecContext) {
		Expect(layer).NotTo(BeAnExistingFile())
		result := gatedSession(ctx, server, workspace, gated, readBaseline)
		text := resultText(result)
		Expect(result.Verdict).To(Equal(verdict.VerdictViolation), text)
		Expect(text).To(ContainSubstring("Unrecorded environment: nobody has recorded the layer " + layer + " for node 20, os debian-13"))
		m := recordHint.FindStringSubmatch(text)
		Expect(m).NotTo(BeNil(), "no record command in:\n%s", text)
		hint = m[1]
	})

	It("records the layer with that command, run as printed by an MCP client with the same session", func(ctx SpecContext) {
		Expect(hint).NotTo(BeEmpty(), "the previous spec found no hint")
		argv := shellWords(hint)
		Expect(argv[0]).To(Equal("sysgate"))
		// The hint's command is the gated run's: its root, binds,
		// directory and server command line.
		Expect(hint).To(ContainSubstring("-o " + readBaseline + " --root " + root + " --bind " + repo + ":" + repo +
			" --bind " + filepath.Join(fixture.SuitesDir(), "node_modules") + ":" + modules + " --dir " + workspace + " --"))
		Expect(argv[len(argv)-len(server.Command):]).To(Equal(server.Command))
		committed, err := os.ReadFile(readBaseline)
		Expect(err).NotTo(HaveOccurred())

		code, out := sysgateServing(ctx, server.Env, argv[1:], func(ctx context.Context, c *mcptest.Client) {
			readSession(ctx, c, workspace)
		})
		Expect(code).To(Equal(0), out)
		data, err := os.ReadFile(layer)
		Expect(err).NotTo(HaveOccurred(), "the record wrote no layer:\n%s", out)
		Expect(string(data)).To(And(ContainSubstring("os: debian 13"), ContainSubstring("libc: glibc 2.41"),
			MatchRegexp(`node 20\.19\.\d+ /usr/bin/node`), ContainSubstring(`- "{node}"`)),
			"the layer names its environment and the command's interpreter as {node}")
		Expect(os.ReadFile(readBaseline)).To(Equal(committed), "the layer takes what the session needed; filesystem-read.yaml serves every environment")
		debian12, err := os.ReadFile(fixture.Baseline("runtimes/debian-12/node-20.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.ReadFile(filepath.Join(runtimeBase, "debian-12", "node-20.yaml"))).To(Equal(debian12), "the Debian 12 layer is another environment's")
		// One recording: node's sched_yield, made in one run and not
		// another, is the built-in scheduling group's, which every check
		// allows.
	})

	It("then checks the same session clean in Debian 13", func(ctx SpecContext) {
		result := gatedSession(ctx, server, workspace, gated, readBaseline)
		text := resultText(result)
		Expect(result.Verdict).To(Equal(verdict.VerdictClean), text)
		Expect(text).NotTo(ContainSubstring("Unrecorded environment"))
	})

	It("names the drift from the Debian 12 layer in the text", func(ctx SpecContext) {
		debian12 := filepath.Join(runtimeBase, "debian-12", "node-20.yaml")
		recordedOnOtherBuilds(debian12)
		result := gatedSession(ctx, server, workspace, gated, debian12)
		text := resultText(result)
		Expect(result.Verdict).To(Equal(verdict.VerdictViolation), text)
		Expect(text).To(MatchRegexp(`environment drift: os debian 12 → debian 13, glibc 2\.36 → 2\.41, node 20\.\d+\.\d+ → 20\.19\.\d+`))
	})
})
