package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
)

// Process is a stdio MCP server started by Exec, outside the gate: for tests
// of the client and for callers that only need to talk to a server.
type Process struct {
	*Client
	cmd    *exec.Cmd
	stderr *Buffer
}

// Exec starts cmd with its stdin and stdout connected to a new Client and
// its stderr captured (Stderr). cmd must not have Stdin, Stdout or Stderr
// set.
func Exec(cmd *exec.Cmd) (*Process, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, stderr: &Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	p.Client = NewClient(stdin, stdout)
	return p, nil
}

// Stderr returns what the server wrote to stderr so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Close closes the server's stdin, waits for its stdout to end and for the
// process to exit. If ctx expires first the server is killed. A non-zero
// exit status is an error carrying the server's stderr.
func (p *Process) Close(ctx context.Context) error {
	closeErr := p.Client.Close(ctx)
	if closeErr != nil {
		_ = p.cmd.Process.Kill()
	}
	waitErr := p.cmd.Wait()
	if waitErr != nil && closeErr == nil {
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) {
			return fmt.Errorf("mcp: server %s: %w; stderr: %s", p.cmd.Path, waitErr, p.Stderr())
		}
		return fmt.Errorf("mcp: wait for %s: %w", p.cmd.Path, waitErr)
	}
	return closeErr
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers: the
// stderr of a server, written by the process plumbing while a test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
