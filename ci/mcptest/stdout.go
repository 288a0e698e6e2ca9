package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// stdoutGuard stands between a server's stdout and the SDK's transport.
// The SDK stops reading at the first line that is not JSON, which would
// leave a chatty server blocked on a full pipe and the caller with a
// bare "connection closed"; the guard reads every line to the end,
// passes the JSON ones on, and on the first other one ends the SDK's
// stream with ErrProtocol quoting the line. Its end (done) is the end of
// the server's stdout, which Close waits for as the stdio transport says.
type stdoutGuard struct {
	*io.PipeReader               // the SDK's side
	done           chan struct{} // closed at the end of the server's stdout

	mu     sync.Mutex
	broken error // ErrProtocol or ErrClosed; set once
}

func guardStdout(r io.Reader) *stdoutGuard {
	pr, pw := io.Pipe()
	g := &stdoutGuard{PipeReader: pr, done: make(chan struct{})}
	go g.copy(r, pw)
	return g
}

func (g *stdoutGuard) copy(r io.Reader, pw *io.PipeWriter) {
	defer close(g.done)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if msg := bytes.TrimSpace(line); len(msg) > 0 && g.err() == nil {
			if !json.Valid(msg) {
				g.fail(fmt.Errorf("%w: %q is not JSON", ErrProtocol, truncate(msg)))
				_ = pw.CloseWithError(g.err())
			} else {
				// Fails at once when the session is closed: the line is
				// dropped, and the reading goes on.
				_, _ = pw.Write(append(msg, '\n'))
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				g.fail(ErrClosed)
				_ = pw.Close() // io.EOF for the SDK: the server exited
			} else {
				g.fail(fmt.Errorf("%w: read: %v", ErrClosed, err))
				_ = pw.CloseWithError(g.err())
			}
			return
		}
	}
}

func (g *stdoutGuard) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.broken == nil {
		g.broken = err
	}
}

func (g *stdoutGuard) err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.broken
}
