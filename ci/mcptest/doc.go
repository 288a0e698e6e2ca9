// Package mcptest drives an MCP server in a spec: it starts the server as
// the agent of a gated run over stdio (Start, or Run around a function
// that talks to it), speaks the Model Context Protocol to it (initialize,
// tools/list, tools/call), and closes it the way the stdio transport
// does, returning the run's verdict.Result for gatetest's matchers:
//
//	result, err := mcptest.Run(ctx, agent, func(ctx context.Context, c *mcptest.Client) error {
//		_, err := c.CallText(ctx, "read_text_file", map[string]any{"path": "README.md"})
//		return err
//	}, harness.WithBaselines("../baselines/my-server.yaml"))
//	Expect(err).NotTo(HaveOccurred())
//	Expect(result).To(gatetest.StayWithinBaseline())
//
// The client is the official MCP Go SDK's (github.com/modelcontextprotocol/go-sdk):
// its client session over the server's stdin and stdout (mcp.IOTransport),
// asking for ProtocolVersion and declaring no capabilities. Results are
// the SDK's types (*mcp.Tool, *mcp.CallToolResult); a tool that reports
// isError is a *ToolError. A line on stdout that is not JSON fails every
// pending and later call with ErrProtocol: an MCP server must keep stdout
// for the protocol. Every call takes a context; without a deadline the
// Client's Timeout applies. A failed call's error ends with the last
// lines of the server's stderr (StderrError) and, when the run ended
// already, how.
//
// Start and Run read the environment a CI step sets, as gatetest.Run
// does ($SYSGATE_MODE and the rest: gatetest.EnvOptions), and put each
// Result into the running Ginkgo spec's report; outside a spec they report
// nothing. Exec starts a server without the gate, for tests of the
// protocol alone. NewClient speaks over any pair of pipes.
//
// The gated run needs what harness.Run needs: root and audit for the
// audit backend, or a kernel with seccomp user notification (Linux 5.8+)
// for the notify backend, which needs no privilege. The client itself
// needs nothing beyond the server's pipes.
package mcptest
