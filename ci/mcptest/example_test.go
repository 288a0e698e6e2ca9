package mcptest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// Run a stdio MCP server under the gate, list its tools, call one, and
// get the run's Result. The server here is this package's test binary,
// which serves a small fake MCP server when MCPTEST_FAKE_SERVER=1; a spec
// puts its server's command line in Command and checks the Result
// against the server's baseline (harness.WithBaselines, then
// Expect(result).To(gatetest.StayWithinBaseline())), as docs/mcp.md
// shows. This one records on the notify backend, which needs neither a
// baseline nor root.
func Example() {
	self, err := os.Executable()
	if err != nil {
		fmt.Println(err)
		return
	}
	server := harness.Agent{Name: "fake-mcp", Command: []string{self}, Env: []string{"MCPTEST_FAKE_SERVER=1"}}
	result, err := mcptest.Run(context.Background(), server, func(ctx context.Context, c *mcptest.Client) error {
		tools, err := c.ListTools(ctx)
		if err != nil {
			return err
		}
		fmt.Println("tools:", len(tools), "the first:", tools[0].Name)
		text, err := c.CallText(ctx, "echo", map[string]any{"text": "hello"})
		if err != nil {
			return err
		}
		fmt.Println("echo:", text)
		return nil
	}, harness.WithBackend(verdict.BackendNotify), harness.WithMode(baseline.ModeRecord))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the server", ci.ExitText(result)+"; conclusive:", result.Conclusive())
	// Output:
	// tools: 6 the first: crash
	// echo: hello
	// the server exited 0; conclusive: true
}
