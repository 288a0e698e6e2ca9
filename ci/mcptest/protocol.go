package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ProtocolVersion is the MCP revision the client asks for in initialize.
const ProtocolVersion = "2025-06-18"

// supportedVersions are the revisions whose initialize/tools messages this
// client understands; a server may answer with an older one it prefers.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Implementation names a client or server (clientInfo, serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the server's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	ServerInfo      Implementation             `json:"serverInfo"`
	Instructions    string                     `json:"instructions,omitempty"`
}

// Tool is one entry of tools/list.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Content is one item of a tool result; only text items carry Text.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// CallToolResult is the result of tools/call. A tool that failed reports
// IsError with the reason in Content; that is not a protocol error.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Text joins the text items of the result with newlines.
func (r *CallToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
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

// DefaultClientInfo is the clientInfo Initialize sends when given none.
var DefaultClientInfo = Implementation{Name: "sysgate-mcptest", Version: "1"}

// Initialize runs the handshake: initialize with this client's info
// (DefaultClientInfo when client is zero) and no capabilities, a check of
// the revision the server chose, then notifications/initialized. Call it
// once, before anything else.
//
// The client asks for ProtocolVersion; a server may answer with another
// revision it prefers, and the handshake succeeds when that one is among
// the revisions whose initialize and tools messages the client reads
// (an older server's 2024-11-05, for one). Any other answer is an error
// wrapping ErrProtocol that names both sides' revisions.
func (c *Client) Initialize(ctx context.Context, client Implementation) (*InitializeResult, error) {
	if client == (Implementation{}) {
		client = DefaultClientInfo
	}
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      client,
	}
	var res InitializeResult
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return nil, err
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		return nil, c.explain(fmt.Errorf("mcp: initialize: server %s speaks protocol %q, client supports %v: %w",
			res.ServerInfo.Name, res.ProtocolVersion, supportedVersions, ErrProtocol))
	}
	if err := c.Notify("notifications/initialized", nil); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListTools returns every tool, following nextCursor pages.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	var all []Tool
	cursor := ""
	for {
		var params any // nil: the first page has no params at all
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		var page struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor,omitempty"`
		}
		if err := c.Call(ctx, "tools/list", params, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" || page.NextCursor == cursor {
			return all, nil
		}
		cursor = page.NextCursor
	}
}

// CallTool calls one tool with args as its arguments: anything that
// encodes to a JSON object (a map, a struct, a json.RawMessage); nil sends
// {}. A tool that reports isError returns the result and a *ToolError, so a
// caller expecting failure can still read the text.
func (c *Client) CallTool(ctx context.Context, name string, args any) (*CallToolResult, error) {
	raw, err := toolArguments(args)
	if err != nil {
		return nil, fmt.Errorf("mcp: tools/call %s: %w", name, err)
	}
	var res CallToolResult
	if err := c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": raw}, &res); err != nil {
		return nil, err
	}
	if res.IsError {
		return &res, &ToolError{Tool: name, Text: res.Text()}
	}
	return &res, nil
}

// CallText calls one tool and returns the text of its result (Text): for
// the common case of a tool that must succeed.
func (c *Client) CallText(ctx context.Context, name string, args any) (string, error) {
	res, err := c.CallTool(ctx, name, args)
	if err != nil {
		return "", err
	}
	return res.Text(), nil
}

// toolArguments encodes a tool's arguments, which MCP requires to be one
// JSON object; nil (or anything that encodes to null) is the empty one.
func toolArguments(args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("arguments %s: want a JSON object (a map or a struct)", truncate(raw))
	}
	return raw, nil
}
