// Package mcp is a small Model Context Protocol client for the stdio
// transport: newline-delimited JSON-RPC 2.0 over a writer (the server's
// stdin) and a reader (the server's stdout).
//
// It speaks just what the suites need to drive a real MCP server the way an
// MCP client does: initialize (protocolVersion, capabilities, clientInfo),
// notifications/initialized, tools/list and tools/call. It does not start the
// server itself, so the same Client works over the pipes of a process started
// by harness.Run and over those of a plain exec.Cmd (Exec, for tests and
// for callers that do not need the gate).
//
// Every call takes a context; without a deadline the Client's Timeout
// applies. Server-initiated requests are answered with "method not found"
// (the client declares no capabilities, so a conforming server sends none);
// notifications are kept for inspection. A line on stdout that is not a
// JSON-RPC message is a protocol error that fails every pending call: an MCP
// server must keep stdout for the protocol.
//
// Needs nothing beyond the server's pipes: no privileges.
package mcp
