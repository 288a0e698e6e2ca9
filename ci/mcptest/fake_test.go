package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The tests' MCP server is this test binary itself: run with
// fakeServerEnv=1 it serves stdio instead of running tests. It is a fake
// for the protocol logic only; the real servers are driven in suites/mcp.
const (
	fakeServerEnv = "MCPTEST_FAKE_SERVER"
	// fakeVersionEnv makes initialize answer with this revision instead
	// of the client's.
	fakeVersionEnv = "MCPTEST_FAKE_VERSION"
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

type fakeRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// serveFake answers requests until the end of stdin and returns the exit
// status. Its tools: echo (the text argument back), fail (isError),
// mkdir (creates path), crash (a message on stderr, exit 3), garbage (a
// line on stdout that is not JSON-RPC), hang (no answer).
func serveFake() int {
	fmt.Fprintln(os.Stderr, "fake MCP server running on stdio")
	out := json.NewEncoder(os.Stdout) // one message a line: Encode ends each with \n
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req fakeRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "fake: bad request %q: %v\n", in.Bytes(), err)
			return 2
		}
		if len(req.ID) == 0 {
			continue // a notification
		}
		result, rpcErr, exit := fakeAnswer(req)
		if exit >= 0 {
			return exit
		}
		if result == nil && rpcErr == nil {
			continue // hang: never answered
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			msg["error"] = rpcErr
		} else {
			msg["result"] = result
		}
		if err := out.Encode(msg); err != nil {
			return 2
		}
	}
	fmt.Fprintln(os.Stderr, "fake: end of stdin")
	if os.Getenv(fakeLingerEnv) == "1" {
		time.Sleep(time.Minute) // a hung server; the test kills it long before
	}
	return 0
}

// fakeAnswer is the result or error for one request; exit >= 0 ends the
// server with that status.
func fakeAnswer(req fakeRequest) (result, rpcErr any, exit int) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		version := p.ProtocolVersion
		if v := os.Getenv(fakeVersionEnv); v != "" {
			version = v
		}
		return map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "fake", "version": "0"},
		}, nil, -1
	case "tools/list":
		// Two pages, so the cursor is followed across a real pipe too.
		if string(req.Params) == `{"cursor":"2"}` {
			return map[string]any{"tools": []map[string]any{{"name": "mkdir"}, {"name": "crash"}}}, nil, -1
		}
		return map[string]any{"tools": []map[string]any{{"name": "echo"}, {"name": "fail"}}, "nextCursor": "2"}, nil, -1
	case "tools/call":
		return fakeTool(req.Params)
	}
	return nil, map[string]any{"code": -32601, "message": "method not found: " + req.Method}, -1
}

func fakeTool(params json.RawMessage) (result, rpcErr any, exit int) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, map[string]any{"code": -32602, "message": err.Error()}, -1
	}
	text := func(s string, isError bool) map[string]any {
		return map[string]any{"content": []map[string]any{{"type": "text", "text": s}}, "isError": isError}
	}
	switch p.Name {
	case "echo":
		return text(p.Arguments["text"], false), nil, -1
	case "fail":
		return text("denied: "+p.Arguments["path"], true), nil, -1
	case "mkdir":
		if err := os.Mkdir(p.Arguments["path"], 0o755); err != nil {
			return text(err.Error(), true), nil, -1
		}
		return text("made "+p.Arguments["path"], false), nil, -1
	case "crash":
		fmt.Fprintln(os.Stderr, "fake: crashing as asked\n\x1b[2Jcleared?")
		return nil, nil, 3
	case "garbage":
		fmt.Println("Server listening on stdio")
		return nil, nil, -1
	case "hang":
		return nil, nil, -1
	}
	return nil, map[string]any{"code": -32602, "message": "unknown tool " + p.Name}, -1
}
