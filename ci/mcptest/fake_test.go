package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests' MCP server is the SDK's server with a few tools. As a
// process it is this test binary itself: run with fakeServerEnv=1 it
// serves stdio instead of running tests. It is a fake for the client's
// logic only; the real servers are driven in suites/mcp.
const (
	fakeServerEnv = "MCPTEST_FAKE_SERVER"
	// fakeLingerEnv "1": on the end of stdin the server keeps running
	// (and its stdout open), as a hung server does.
	fakeLingerEnv = "MCPTEST_FAKE_LINGER"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) == "1" {
		os.Exit(serveFake())
	}
	os.Exit(m.Run())
}

// fakeCommand starts the fake server outside the gate, with env added.
func fakeCommand(t testing.TB, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(fakeExe(t))
	cmd.Env = append(os.Environ(), append([]string{fakeServerEnv + "=1"}, env...)...)
	return cmd
}

func fakeExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// serveFake serves the fake on stdio until the end of stdin and returns
// the exit status.
func serveFake() int {
	fmt.Fprintln(os.Stderr, "fake MCP server running on stdio")
	if err := newFakeServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 2
	}
	fmt.Fprintln(os.Stderr, "fake: end of stdin")
	if os.Getenv(fakeLingerEnv) == "1" {
		time.Sleep(time.Minute) // a hung server; the test kills it long before
	}
	return 0
}

// fakeTools are the fake's tools: echo (the text argument back), fail
// (isError), mkdir (creates path), crash (a message on stderr, exit 3),
// garbage (a line on stdout that is not JSON-RPC, no answer), hang (no
// answer).
var fakeTools = []string{"crash", "echo", "fail", "garbage", "hang", "mkdir"}

// newFakeServer is the fake, two tools a page so that a client follows
// the cursor.
func newFakeServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "0"}, &mcp.ServerOptions{PageSize: 2})
	for _, name := range fakeTools {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]string
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return fakeTool(ctx, name, args), nil
		})
	}
	return s
}

func fakeTool(ctx context.Context, name string, args map[string]string) *mcp.CallToolResult {
	text := func(s string, isError bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isError}
	}
	switch name {
	case "echo":
		return text(args["text"], false)
	case "fail":
		return text("denied: "+args["path"], true)
	case "mkdir":
		if err := os.Mkdir(args["path"], 0o755); err != nil {
			return text(err.Error(), true)
		}
		return text("made "+args["path"], false)
	case "crash":
		fmt.Fprintln(os.Stderr, "fake: crashing as asked\n\x1b[2Jcleared?")
		os.Exit(3)
	case "garbage":
		fmt.Println("Server listening on stdio")
	}
	<-ctx.Done() // hang, and garbage: never answered
	return text("cancelled", true)
}
