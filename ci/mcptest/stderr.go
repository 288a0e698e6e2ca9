package mcptest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sysgate/sysgate/internal/untrusted"
)

// Bounds on a server's stderr: how much a Server or Process keeps (a
// chatty server must not grow the test's memory without end), and how
// much of its end an error quotes.
const (
	stderrKeep      = 64 << 10
	stderrTailLines = 20
	stderrTailBytes = 4 << 10
)

// settleTimeout bounds the wait for a server's last stderr after its
// stdout ended: a child that inherited stderr may keep it open.
const settleTimeout = 5 * time.Second

// settle waits for done, at most settleTimeout.
func settle(done <-chan struct{}) {
	t := time.NewTimer(settleTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// stderrTail keeps the last stderrKeep bytes a server wrote to stderr,
// written by the process plumbing while the test reads it.
type stderrTail struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool // the start was cut off
}

func (b *stderrTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - stderrKeep; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
	return len(p), nil
}

// String is what is kept, with a note in front when the start was cut.
func (b *stderrTail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped {
		return fmt.Sprintf("[earlier output cut: only the last %d bytes are kept]\n%s", stderrKeep, b.buf)
	}
	return string(b.buf)
}

// tail is the end of stderr for an error message: the last lines, each
// with its control characters escaped (the server's text is data, and
// must not move the cursor of the terminal that shows the failure), one
// a line behind an indent. Empty when the server wrote nothing.
func (b *stderrTail) tail() string {
	b.mu.Lock()
	text := string(b.buf)
	b.mu.Unlock()
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return ""
	}
	if len(text) > stderrTailBytes {
		text = text[len(text)-stderrTailBytes:]
	}
	lines := strings.Split(text, "\n")
	if len(lines) > stderrTailLines {
		lines = lines[len(lines)-stderrTailLines:]
	}
	for i, l := range lines {
		lines[i] = "    " + untrusted.Terminal(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n")
}

// withStderr adds the end of the server's stderr to err, where a reader
// of the failure looks for why a server broke off (a stack trace, a
// missing module). A tool's own failure (*ToolError) carries the tool's
// text instead and is left as it is.
func withStderr(err error, stderr *stderrTail) error {
	var tool *ToolError
	if err == nil || errors.As(err, &tool) {
		return err
	}
	tail := stderr.tail()
	if tail == "" {
		return err
	}
	return &StderrError{Err: err, Tail: tail}
}

// StderrError is a failed call, start or close of a server that wrote to
// stderr: Err is what failed, Tail the last lines the server wrote
// (escaped, indented). errors.Is and errors.As see through it to Err.
type StderrError struct {
	Err  error
	Tail string
}

func (e *StderrError) Error() string {
	return fmt.Sprintf("%v\nthe end of the server's stderr:\n%s", e.Err, e.Tail)
}

func (e *StderrError) Unwrap() error { return e.Err }
