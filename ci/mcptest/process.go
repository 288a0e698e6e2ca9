package mcptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Process is a stdio MCP server started by Exec, outside the gate: for
// tests of a server's protocol and for callers that only need to talk to
// one. Its Client's errors end with the server's stderr.
type Process struct {
	*Client
	cmd        *exec.Cmd
	stderr     *stderrTail
	stderrDone chan struct{} // closed at the end of the server's stderr
}

// Exec starts cmd with its stdin and stdout connected to a new Client and
// its stderr kept (Stderr). cmd must not have Stdin, Stdout or Stderr set.
func Exec(cmd *exec.Cmd) (*Process, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, fmt.Errorf("mcp: start %s: Stdin, Stdout and Stderr are the protocol's: leave them unset", cmd.Path)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	// A pipe of our own rather than exec's copy: a failed call waits for
	// its end, so the error quotes what a crashing server wrote last.
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, stderr: &stderrTail{}, stderrDone: make(chan struct{})}
	cmd.Stderr = stderrW
	err = cmd.Start()
	stderrW.Close()
	if err != nil {
		stderrR.Close()
		return nil, fmt.Errorf("mcp: start %s: %w", cmd.Path, err)
	}
	go func() {
		defer close(p.stderrDone)
		_, _ = io.Copy(p.stderr, stderrR)
		stderrR.Close()
	}()
	p.Client = NewClient(stdin, stdout)
	p.annotate = p.explainFailure
	return p, nil
}

// explainFailure adds the end of the server's stderr to a failed call;
// when the connection ended, after the end of stderr (at most
// settleTimeout), so it holds the server's last words.
func (p *Process) explainFailure(err error) error {
	if errors.Is(err, ErrClosed) {
		settle(p.stderrDone)
	}
	return withStderr(err, p.stderr)
}

// Stderr returns what the server wrote to stderr so far (its last 64 KiB).
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
	settle(p.stderrDone)
	if waitErr != nil && closeErr == nil {
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) {
			return withStderr(fmt.Errorf("mcp: server %s: %w", p.cmd.Path, waitErr), p.stderr)
		}
		return fmt.Errorf("mcp: wait for %s: %w", p.cmd.Path, waitErr)
	}
	return withStderr(closeErr, p.stderr)
}
