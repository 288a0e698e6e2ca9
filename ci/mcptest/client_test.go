package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipes are a Client's two pipes as the server sees them, inside the
// test process: no process, no gate.
type pipes struct {
	stdin  *io.PipeReader // what the client writes
	stdout *io.PipeWriter // what the client reads
}

func newPipes(t *testing.T) (*Client, pipes) {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	t.Cleanup(func() {
		_ = c2sR.Close()
		_ = s2cW.Close()
	})
	return NewClient(c2sW, s2cR), pipes{stdin: c2sR, stdout: s2cW}
}

// connected is a Client initialized with the fake served by the SDK on
// its pipes. The test may write lines of its own on the server's stdout
// (p.stdout), as a misbehaving server does.
func connected(t *testing.T) (*Client, pipes) {
	t.Helper()
	c, p := newPipes(t)
	ctx := context.Background()
	ss, err := newFakeServer().Connect(ctx, &mcp.IOTransport{Reader: p.stdin, Writer: p.stdout}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	if _, err := c.Initialize(ctx, Implementation{Name: "t", Version: "1"}); err != nil {
		t.Fatal(err)
	}
	return c, p
}

// call runs fn (a client call) in the background and returns its error
// channel.
func call(fn func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- fn() }()
	return ch
}

func hang(c *Client) <-chan error {
	return call(func() error { _, err := c.CallTool(context.Background(), "hang", nil); return err })
}

// The handshake a gated run's baseline was recorded with: the revision
// asked for, the client's name, and no capabilities (the SDK's default
// offers roots, which a filesystem server acts on).
func TestInitializeAsksForNoCapabilities(t *testing.T) {
	c, p := newPipes(t)
	done := call(func() error { _, err := c.Initialize(context.Background(), Implementation{}); return err })
	line, err := bufio.NewReader(p.stdin).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
			ClientInfo      Implementation  `json:"clientInfo"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	if m.Method != "initialize" || m.Params.ProtocolVersion != ProtocolVersion || string(m.Params.Capabilities) != "{}" || m.Params.ClientInfo.Name != DefaultClientInfo.Name {
		t.Fatalf("first message = %s", line)
	}
	_ = p.stdout.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("initialize with the server gone = %v, want ErrClosed", err)
	}
}

func TestCallsNeedInitialize(t *testing.T) {
	c, _ := newPipes(t)
	if _, err := c.ListTools(context.Background()); err == nil {
		t.Fatal("ListTools before Initialize: no error")
	}
}

func TestListToolsFollowsCursor(t *testing.T) {
	c, _ := connected(t)
	wantEveryTool(t, c)
}

// wantEveryTool checks that ListTools returns every tool of the fake,
// across its pages.
func wantEveryTool(t *testing.T, c *Client) {
	t.Helper()
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, fakeTools) {
		t.Fatalf("tools = %v, want every page: %v", names, fakeTools)
	}
}

func TestCallToolIsErrorKeepsResult(t *testing.T) {
	c, _ := connected(t)
	res, err := c.CallTool(context.Background(), "fail", map[string]any{"path": "/etc/shadow"})
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != "fail" || te.Text != "denied: /etc/shadow" {
		t.Fatalf("err = %v, want ToolError(fail, denied: /etc/shadow)", err)
	}
	if res == nil || !res.IsError {
		t.Fatalf("result = %+v, want the isError result", res)
	}
}

// A server's own error (an unknown tool here) is the SDK's JSON-RPC error,
// which errors.As finds through mcptest's wrapping.
func TestServerErrorIsTheSDKs(t *testing.T) {
	c, _ := connected(t)
	_, err := c.CallTool(context.Background(), "nosuch", nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "nosuch") {
		t.Fatalf("err = %v, want a *jsonrpc.Error naming the tool", err)
	}
}

func TestTimeoutWithoutDeadline(t *testing.T) {
	c, _ := connected(t)
	c.Timeout = 50 * time.Millisecond
	if err := <-hang(c); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	c.Timeout = 0
	if text, err := c.CallText(context.Background(), "echo", map[string]string{"text": "next"}); err != nil || text != "next" {
		t.Fatalf("call after a timed-out one = %q, %v", text, err)
	}
}

func TestGarbageOnStdoutFailsPendingAndLaterCalls(t *testing.T) {
	c, p := connected(t)
	pending := hang(c)
	if _, err := io.WriteString(p.stdout, "Server listening on stdio\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-pending; !errors.Is(err, ErrProtocol) {
		t.Fatalf("pending call: err = %v, want ErrProtocol", err)
	}
	if _, err := c.CallText(context.Background(), "echo", nil); !errors.Is(err, ErrProtocol) {
		t.Fatalf("later call: err = %v, want ErrProtocol", err)
	}
}

// After a line that is not JSON the guard reads on to the end, so the
// server never blocks on a full stdout, and the end is still seen.
func TestStdoutGuardDrainsAfterGarbage(t *testing.T) {
	r, w := io.Pipe()
	g := guardStdout(r)
	for _, line := range []string{"Server listening on stdio\n", `{"jsonrpc":"2.0","method":"still/reading"}` + "\n", "more\n"} {
		if _, err := io.WriteString(w, line); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.ReadAll(g); !errors.Is(err, ErrProtocol) {
		t.Fatalf("the SDK's side ends with %v, want ErrProtocol", err)
	}
	_ = w.Close()
	<-g.done
	if err := g.err(); !errors.Is(err, ErrProtocol) {
		t.Fatalf("guard error = %v, want the first: ErrProtocol", err)
	}
}

func TestServerExitFailsPendingCall(t *testing.T) {
	c, p := connected(t)
	pending := hang(c)
	_ = p.stdout.Close()
	if err := <-pending; !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

func TestCloseClosesStdinThenWaitsForStdout(t *testing.T) {
	c, _ := connected(t) // the SDK's server ends its stdout at the end of its stdin
	if err := c.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := c.CallText(context.Background(), "echo", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: err = %v, want ErrClosed", err)
	}
}

func TestCloseTimesOutWhenServerKeepsStdoutOpen(t *testing.T) {
	c, p := newPipes(t)
	go func() { _, _ = io.Copy(io.Discard, p.stdin) }() // never closes stdout
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want DeadlineExceeded", err)
	}
}
