package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTimeout bounds a call whose context has no deadline.
const DefaultTimeout = 30 * time.Second

// ProtocolVersion is the MCP revision the client asks for in initialize.
// The SDK accepts the older revisions a server may answer with, and
// refuses any it does not know.
const ProtocolVersion = "2025-06-18"

// Errors a call can end with besides the server's own (a *jsonrpc.Error
// of the SDK, github.com/modelcontextprotocol/go-sdk/jsonrpc).
var (
	// ErrClosed: the server's stdout ended (the server exited, or Close
	// was called) before the response arrived.
	ErrClosed = errors.New("mcp: connection closed")
	// ErrProtocol: the server wrote a line on stdout that is not JSON.
	ErrProtocol = errors.New("mcp: protocol error")
)

// Implementation names the client in initialize (clientInfo).
type Implementation = mcp.Implementation

// DefaultClientInfo is the clientInfo Initialize sends when given none.
var DefaultClientInfo = Implementation{Name: "sysgate-mcptest", Version: "1"}

// Client is one MCP client connection: the official Go SDK's client
// session over the server's stdin and stdout. Its methods are safe for
// concurrent use.
type Client struct {
	// Timeout bounds each call whose context has no deadline (DefaultTimeout
	// when zero).
	Timeout time.Duration

	stdin  io.Writer
	stdout *stdoutGuard

	mu      sync.Mutex
	session *mcp.ClientSession // set by Initialize

	// annotate adds what the process owner knows to a failed call (the
	// server's stderr, how its run ended); nil for a bare NewClient.
	annotate func(error) error
}

// NewClient makes a client that writes to w (the server's stdin) and
// reads r (the server's stdout) until r ends; Initialize starts the
// session. If w is an io.Closer, Close closes it: that is how a stdio
// server is told to exit. Close may close w while a write to it is
// blocked, as an *os.File and an *io.PipeWriter allow.
func NewClient(w io.Writer, r io.Reader) *Client {
	return &Client{stdin: w, stdout: guardStdout(r)}
}

// Initialize runs the handshake (the SDK's Client.Connect): initialize
// with this client's info (DefaultClientInfo when client has no name) and
// no capabilities, asking for ProtocolVersion, then
// notifications/initialized. Call it once, before anything else.
func (c *Client) Initialize(ctx context.Context, client Implementation) (*mcp.InitializeResult, error) {
	if client.Name == "" {
		client = DefaultClientInfo
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	// No capabilities, as before the SDK: the SDK's default offers roots,
	// which makes a filesystem server ask for them and change what it
	// does (and so what the gate sees).
	sdk := mcp.NewClient(&client, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	session, err := sdk.Connect(ctx, &mcp.IOTransport{Reader: c.stdout, Writer: writeCloser{c.stdin}},
		&mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, c.failed("initialize", err)
	}
	c.mu.Lock()
	c.session = session
	c.mu.Unlock()
	return session.InitializeResult(), nil
}

// ListTools returns every tool, following the pages of tools/list.
func (c *Client) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	s, err := c.initialized("tools/list")
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var all []*mcp.Tool
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, c.failed("tools/list", err)
		}
		all = append(all, tool)
	}
	return all, nil
}

// CallTool calls one tool with args as its arguments: anything that
// encodes to a JSON object (a map, a struct, a json.RawMessage); nil sends
// {}. A tool that reports isError returns the result and a *ToolError, so a
// caller expecting failure can still read the text.
func (c *Client) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	s, err := c.initialized("tools/call " + name)
	if err != nil {
		return nil, err
	}
	raw, err := toolArguments(args)
	if err != nil {
		return nil, fmt.Errorf("mcp: tools/call %s: %w", name, err)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		return nil, c.failed("tools/call "+name, err)
	}
	if res.IsError {
		return res, &ToolError{Tool: name, Text: Text(res)}
	}
	return res, nil
}

// CallText calls one tool and returns the text of its result (Text): for
// the common case of a tool that must succeed.
func (c *Client) CallText(ctx context.Context, name string, args any) (string, error) {
	res, err := c.CallTool(ctx, name, args)
	if err != nil {
		return "", err
	}
	return Text(res), nil
}

// Text joins the text items of a tool's result with newlines.
func Text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolError is returned by CallTool when the tool reported isError.
type ToolError struct {
	Tool string
	Text string
}

func (e *ToolError) Error() string { return fmt.Sprintf("mcp: tool %s failed: %s", e.Tool, e.Text) }

// Err reports why the server's stdout broke off (ErrProtocol) or ended
// (ErrClosed), or nil while it is open.
func (c *Client) Err() error { return c.stdout.err() }

// Close shuts the connection down the way the stdio transport specifies:
// close the server's stdin (if the writer is an io.Closer), then wait until
// the server's stdout ends. It returns a protocol error seen on the way,
// or ctx's error if stdout did not end in time (the process owner then
// kills the server).
func (c *Client) Close(ctx context.Context) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	var closeErr error
	if s != nil {
		closeErr = s.Close() // closes the server's stdin
	} else {
		closeErr = writeCloser{c.stdin}.Close()
	}
	select {
	case <-c.stdout.done:
	case <-ctx.Done():
		return fmt.Errorf("mcp: close: server did not close its stdout: %w", ctx.Err())
	}
	if err := c.Err(); err != nil && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("mcp: close: %w", err)
	}
	if closeErr != nil {
		return fmt.Errorf("mcp: close stdin: %w", closeErr)
	}
	return nil
}

func (c *Client) initialized(method string) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil, fmt.Errorf("mcp: %s: call Initialize first", method)
	}
	return c.session, nil
}

// failed names the call, adds why the server's stdout ended when it did
// (the SDK only sees a closed connection), and runs annotate.
func (c *Client) failed(method string, err error) error {
	if broken := c.Err(); broken != nil && !errors.Is(err, broken) {
		err = fmt.Errorf("%w: %w", broken, err)
	}
	err = fmt.Errorf("mcp: %s: %w", method, err)
	if c.annotate == nil {
		return err
	}
	return c.annotate(err)
}

func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	d := c.Timeout
	if d <= 0 {
		d = DefaultTimeout
	}
	return context.WithTimeout(ctx, d)
}

// toolArguments encodes a tool's arguments, which MCP requires to be one
// JSON object; nil (or anything that encodes to null) is the empty one.
func toolArguments(args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	if string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("arguments %s: want a JSON object (a map or a struct)", truncate(raw))
	}
	return raw, nil
}

// writeCloser closes the server's stdin when it can be closed.
type writeCloser struct{ io.Writer }

func (w writeCloser) Close() error {
	if c, ok := w.Writer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func truncate(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
