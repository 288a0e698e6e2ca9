package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Errors a call can end with besides a server's *RPCError.
var (
	// ErrClosed: the connection was closed (Close called, or the server's
	// stdout ended) before the response arrived.
	ErrClosed = errors.New("mcp: connection closed")
	// ErrProtocol: the server wrote something that is not JSON-RPC 2.0.
	ErrProtocol = errors.New("mcp: protocol error")
)

// JSON-RPC 2.0 error codes used here.
const (
	codeMethodNotFound = -32601
)

// message is any JSON-RPC 2.0 message; which fields are set tells the kind:
// request (method and id), notification (method only), response (id and
// result or error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object returned by the server.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("mcp: server error %d: %s", e.Code, e.Message)
}

// Notification is a server-to-client notification (e.g. a log message).
type Notification struct {
	Method string
	Params json.RawMessage
}

// encode renders one message as a single line. encoding/json escapes
// control characters inside strings, so the only newline is the delimiter.
func encode(m *message) ([]byte, error) {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decode parses one line into a message and checks the envelope.
func decode(line []byte) (*message, error) {
	line = bytes.TrimRight(line, "\r\n")
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("%w: %q is not JSON: %v", ErrProtocol, truncate(line), err)
	}
	if m.JSONRPC != "2.0" {
		return nil, fmt.Errorf("%w: %q: jsonrpc is %q, want \"2.0\"", ErrProtocol, truncate(line), m.JSONRPC)
	}
	if m.Method == "" && len(m.ID) == 0 {
		return nil, fmt.Errorf("%w: %q: neither method nor id", ErrProtocol, truncate(line))
	}
	return &m, nil
}

// responseID returns the numeric id of a response; the client only sends
// numeric ids, so anything else cannot be an answer to one of its calls.
func responseID(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

func truncate(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
