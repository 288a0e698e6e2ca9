package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The MCP client of the suites (suites/internal/mcp) is internal to
// suites/, so the bench speaks the little it needs itself: newline-
// delimited JSON-RPC over the server's stdio, one request at a time.
type mcpConn struct {
	w      io.WriteCloser
	r      *bufio.Reader
	nextID int
}

func newMCPConn(w io.WriteCloser, r io.Reader) *mcpConn {
	return &mcpConn{w: w, r: bufio.NewReaderSize(r, 1<<20)}
}

type rpcReply struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *mcpConn) send(method string, params any, notify bool) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	if !notify {
		c.nextID++
		msg["id"] = c.nextID
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends a request and returns its result, skipping notifications.
func (c *mcpConn) call(method string, params any) (json.RawMessage, error) {
	if err := c.send(method, params, false); err != nil {
		return nil, fmt.Errorf("mcp %s: %w", method, err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("mcp %s: %w", method, err)
		}
		var rep rpcReply
		if err := json.Unmarshal(line, &rep); err != nil {
			return nil, fmt.Errorf("mcp %s: reply %q: %w", method, line, err)
		}
		if rep.ID == nil || *rep.ID != c.nextID {
			continue
		}
		if rep.Error != nil {
			return nil, fmt.Errorf("mcp %s: %d %s", method, rep.Error.Code, rep.Error.Message)
		}
		return rep.Result, nil
	}
}

// drive initializes the session and makes w.mcpCalls tool calls,
// alternating a file read and a directory listing, then closes the
// server's stdin (a stdio server exits on end of input).
func drive(ctx context.Context, c *mcpConn, w workload) error {
	defer c.w.Close()
	if _, err := c.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "sysgate-bench", "version": "1"},
	}); err != nil {
		return err
	}
	if err := c.send("notifications/initialized", nil, true); err != nil {
		return err
	}
	for i := 0; i < w.mcpCalls; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		tool, args := "read_text_file", map[string]any{"path": w.dir + "/README.md"}
		if i%2 == 1 {
			tool, args = "list_directory", map[string]any{"path": w.dir}
		}
		res, err := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
		if err != nil {
			return fmt.Errorf("tool call %d: %w", i, err)
		}
		var r struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(res, &r) != nil || r.IsError {
			return errors.New("tool call " + tool + " failed: " + string(res))
		}
	}
	return nil
}
