package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// fakeServer is the far end of a Client inside the test process: it reads
// what the client writes and writes what the test scripts. Pure framing
// logic, no process.
type fakeServer struct {
	t   *testing.T
	in  *bufio.Reader  // client -> server
	out io.WriteCloser // server -> client
}

func newPair(t *testing.T) (*Client, *fakeServer) {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	c := NewClient(c2sW, s2cR)
	t.Cleanup(func() {
		_ = c2sR.Close()
		_ = s2cW.Close()
	})
	return c, &fakeServer{t: t, in: bufio.NewReader(c2sR), out: s2cW}
}

// next reads one line the client wrote and checks the envelope.
func (s *fakeServer) next() *message {
	s.t.Helper()
	line, err := s.in.ReadBytes('\n')
	if err != nil {
		s.t.Fatalf("fake server: read: %v", err)
	}
	if strings.Count(string(line), "\n") != 1 {
		s.t.Fatalf("fake server: message is not exactly one line: %q", line)
	}
	m, err := decode(line)
	if err != nil {
		s.t.Fatalf("fake server: %v", err)
	}
	return m
}

func (s *fakeServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.out, line+"\n"); err != nil {
		s.t.Fatalf("fake server: write: %v", err)
	}
}

// call runs fn (a client call) in the background and returns its error
// channel, so the fake can answer in any order.
func call(fn func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- fn() }()
	return ch
}

func TestCallRoundTrip(t *testing.T) {
	c, s := newPair(t)
	var got struct{ Answer int }
	done := call(func() error { return c.Call(context.Background(), "ask", map[string]int{"q": 1}, &got) })
	m := s.next()
	if m.Method != "ask" || string(m.ID) != "1" || string(m.Params) != `{"q":1}` {
		t.Fatalf("request = method %q id %s params %s; want ask, 1, {\"q\":1}", m.Method, m.ID, m.Params)
	}
	s.send(`{"jsonrpc":"2.0","id":1,"result":{"Answer":42}}`)
	if err := <-done; err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got.Answer != 42 {
		t.Fatalf("result Answer = %d, want 42", got.Answer)
	}
}

func TestResponsesMatchedByID(t *testing.T) {
	c, s := newPair(t)
	var first, second string
	d1 := call(func() error { return c.Call(context.Background(), "a", nil, &first) })
	m1 := s.next()
	d2 := call(func() error { return c.Call(context.Background(), "b", nil, &second) })
	m2 := s.next()
	if string(m1.ID) == string(m2.ID) {
		t.Fatalf("two calls share id %s", m1.ID)
	}
	// Answer out of order.
	s.send(`{"jsonrpc":"2.0","id":` + string(m2.ID) + `,"result":"` + m2.Method + `"}`)
	s.send(`{"jsonrpc":"2.0","id":` + string(m1.ID) + `,"result":"` + m1.Method + `"}`)
	if err := <-d1; err != nil {
		t.Fatal(err)
	}
	if err := <-d2; err != nil {
		t.Fatal(err)
	}
	if first != "a" || second != "b" {
		t.Fatalf("results = %q, %q; want a, b", first, second)
	}
}

func TestServerErrorIsRPCError(t *testing.T) {
	c, s := newPair(t)
	done := call(func() error { return c.Call(context.Background(), "nope", nil, nil) })
	m := s.next()
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
	err := <-done
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32601 {
		t.Fatalf("err = %v, want *RPCError with code -32601", err)
	}
}

func TestServerRequestIsRefusedAndNotificationKept(t *testing.T) {
	c, s := newPair(t)
	s.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`)
	s.send(`{"jsonrpc":"2.0","id":"srv-7","method":"roots/list"}`)
	m := s.next()
	if string(m.ID) != `"srv-7"` || m.Error == nil || m.Error.Code != codeMethodNotFound {
		t.Fatalf("reply to server request = id %s error %+v; want id \"srv-7\" code %d", m.ID, m.Error, codeMethodNotFound)
	}
	// The notification was read before the request, so it is recorded now.
	notes := c.Notifications()
	if len(notes) != 1 || notes[0].Method != "notifications/message" {
		t.Fatalf("notifications = %+v, want one notifications/message", notes)
	}
}

func TestGarbageOnStdoutFailsPendingAndLaterCalls(t *testing.T) {
	c, s := newPair(t)
	done := call(func() error { return c.Call(context.Background(), "x", nil, nil) })
	s.next()
	s.send(`Server listening on stdio`)
	if err := <-done; !errors.Is(err, ErrProtocol) {
		t.Fatalf("pending call: err = %v, want ErrProtocol", err)
	}
	if err := c.Call(context.Background(), "y", nil, nil); !errors.Is(err, ErrProtocol) {
		t.Fatalf("later call: err = %v, want ErrProtocol", err)
	}
	// The reader keeps draining: the server must never block on stdout.
	s.send(`{"jsonrpc":"2.0","method":"still/reading"}`)
}

func TestDecodeRejectsBadEnvelopes(t *testing.T) {
	for _, line := range []string{
		`{"id":1,"result":{}}`,            // no jsonrpc
		`{"jsonrpc":"1.0","id":1}`,        // wrong version
		`{"jsonrpc":"2.0","result":{}}`,   // neither id nor method
		`[{"jsonrpc":"2.0","id":1}]`,      // batch: not in the stdio transport
		`{"jsonrpc":"2.0","id":1,"result`, // cut off
	} {
		if _, err := decode([]byte(line)); !errors.Is(err, ErrProtocol) {
			t.Errorf("decode(%s) = %v, want ErrProtocol", line, err)
		}
	}
}

func TestEncodeKeepsOneLine(t *testing.T) {
	b, err := encode(&message{Method: "tools/call", Params: json.RawMessage(`{"content":"a\nb\r\nc"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "\n") != 1 || b[len(b)-1] != '\n' {
		t.Fatalf("encoded %q: want exactly one trailing newline", b)
	}
	if !strings.HasPrefix(string(b), `{"jsonrpc":"2.0"`) {
		t.Fatalf("encoded %q: want jsonrpc first", b)
	}
}

func TestTimeoutWithoutDeadline(t *testing.T) {
	c, s := newPair(t)
	c.Timeout = 20 * time.Millisecond
	done := call(func() error { return c.Call(context.Background(), "slow", nil, nil) })
	m := s.next() // received, never answered
	err := <-done
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	// A late answer is dropped without disturbing the next call.
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
	done = call(func() error { return c.Call(context.Background(), "next", nil, nil) })
	m = s.next()
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
	if err := <-done; err != nil {
		t.Fatalf("call after a timed-out one: %v", err)
	}
}

func TestServerExitFailsPendingCall(t *testing.T) {
	c, s := newPair(t)
	done := call(func() error { return c.Call(context.Background(), "x", nil, nil) })
	s.next()
	_ = s.out.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

func TestCloseClosesStdinThenWaitsForStdout(t *testing.T) {
	c, s := newPair(t)
	// The fake exits like a stdio server: on EOF of its stdin it closes stdout.
	go func() {
		_, _ = io.Copy(io.Discard, s.in)
		_ = s.out.Close()
	}()
	if err := c.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Call(context.Background(), "after", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: err = %v, want ErrClosed", err)
	}
}

func TestCloseTimesOutWhenServerKeepsStdoutOpen(t *testing.T) {
	c, s := newPair(t)
	go func() { _, _ = io.Copy(io.Discard, s.in) }() // never closes stdout
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want DeadlineExceeded", err)
	}
}

func TestInitializeHandshake(t *testing.T) {
	c, s := newPair(t)
	var res *InitializeResult
	done := call(func() (err error) {
		res, err = c.Initialize(context.Background(), Implementation{Name: "t", Version: "1"})
		return err
	})
	m := s.next()
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      Implementation  `json:"clientInfo"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if m.Method != "initialize" || p.ProtocolVersion != ProtocolVersion || string(p.Capabilities) != "{}" || p.ClientInfo.Name != "t" {
		t.Fatalf("initialize request = %s %s", m.Method, m.Params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0"}}}`)
	n := s.next()
	if n.Method != "notifications/initialized" || len(n.ID) != 0 {
		t.Fatalf("after initialize: %s id %s, want notifications/initialized without id", n.Method, n.ID)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "fake" || res.ProtocolVersion != "2025-03-26" {
		t.Fatalf("result = %+v", res)
	}
}

func TestInitializeRejectsUnknownRevision(t *testing.T) {
	c, s := newPair(t)
	done := call(func() error {
		_, err := c.Initialize(context.Background(), Implementation{Name: "t", Version: "1"})
		return err
	})
	m := s.next()
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"0"}}}`)
	if err := <-done; !errors.Is(err, ErrProtocol) {
		t.Fatalf("err = %v, want ErrProtocol", err)
	}
}

func TestListToolsFollowsCursor(t *testing.T) {
	c, s := newPair(t)
	var tools []Tool
	done := call(func() (err error) { tools, err = c.ListTools(context.Background()); return err })
	m := s.next()
	if len(m.Params) != 0 {
		t.Fatalf("first page params = %s, want none", m.Params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}`)
	m = s.next()
	if string(m.Params) != `{"cursor":"p2"}` {
		t.Fatalf("second page params = %s", m.Params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[{"name":"b"}]}}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "a" || tools[1].Name != "b" {
		t.Fatalf("tools = %+v, want a, b", tools)
	}
}

func TestCallToolIsErrorKeepsResult(t *testing.T) {
	c, s := newPair(t)
	var res *CallToolResult
	done := call(func() (err error) {
		res, err = c.CallTool(context.Background(), "read_text_file", map[string]any{"path": "/etc/shadow"})
		return err
	})
	m := s.next()
	if string(m.Params) != `{"arguments":{"path":"/etc/shadow"},"name":"read_text_file"}` {
		t.Fatalf("tools/call params = %s", m.Params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"Access denied"}],"isError":true}}`)
	err := <-done
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != "read_text_file" || te.Text != "Access denied" {
		t.Fatalf("err = %v, want ToolError(read_text_file, Access denied)", err)
	}
	if res == nil || !res.IsError {
		t.Fatalf("result = %+v, want the isError result", res)
	}
}
