package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultTimeout bounds a call whose context has no deadline.
const DefaultTimeout = 30 * time.Second

// Client is one MCP client connection. Its methods are safe for concurrent
// use; responses are matched to calls by id.
type Client struct {
	// Timeout bounds each call whose context has no deadline (DefaultTimeout
	// when zero).
	Timeout time.Duration

	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	notes   []Notification
	err     error         // why the connection broke; set once
	broken  chan struct{} // closed when err is set
	done    chan struct{} // closed when the reader has seen the end of r

	// annotate adds what the process owner knows to a failed call (the
	// server's stderr, how its run ended); nil for a bare NewClient.
	annotate func(error) error
}

// NewClient starts a client that writes requests to w (the server's stdin)
// and reads messages from r (the server's stdout) until r ends. If w is an
// io.Closer, Close closes it: that is how a stdio server is told to exit.
// Close may close w while a write to it is blocked, as an *os.File and an
// *io.PipeWriter allow.
func NewClient(w io.Writer, r io.Reader) *Client {
	c := &Client{
		w:       w,
		pending: make(map[int64]chan *message),
		broken:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	go c.readLoop(r)
	return c
}

// Call sends one request and decodes its result into result (unless nil).
// A JSON-RPC error from the server comes back as *RPCError. A client of
// Start or Exec adds the end of the server's stderr to the error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.explain(c.call(ctx, method, params, result))
}

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()

	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: encode params: %w", method, err)
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	defer c.forget(id)

	if err := c.send(&message{ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: raw}); err != nil {
		return fmt.Errorf("mcp: %s (id %d): %w", method, id, err)
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return fmt.Errorf("mcp: %s (id %d): %w", method, id, resp.Error)
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("mcp: %s (id %d): decode result: %w: %v", method, id, ErrProtocol, err)
		}
		return nil
	case <-c.broken:
		return fmt.Errorf("mcp: %s (id %d): %w", method, id, c.Err())
	case <-ctx.Done():
		return fmt.Errorf("mcp: %s (id %d): no response: %w", method, id, ctx.Err())
	}
}

// Notify sends a notification; there is no response.
func (c *Client) Notify(method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: encode params: %w", method, err)
	}
	if err := c.send(&message{Method: method, Params: raw}); err != nil {
		return c.explain(fmt.Errorf("mcp: %s: %w", method, err))
	}
	return nil
}

// explain runs a failed call's error through annotate.
func (c *Client) explain(err error) error {
	if err == nil || c.annotate == nil {
		return err
	}
	return c.annotate(err)
}

// Notifications returns the notifications the server sent so far.
func (c *Client) Notifications() []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Notification(nil), c.notes...)
}

// Err reports why the connection broke, or nil while it works.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close shuts the connection down the way the stdio transport specifies:
// close the server's stdin (if the writer is an io.Closer), then wait until
// the server's stdout ends. Pending calls fail with ErrClosed. It returns a
// protocol error seen on the way, or ctx's error if stdout did not end in
// time (the process owner then kills the server).
func (c *Client) Close(ctx context.Context) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var closeErr error
	if wc, ok := c.w.(io.Closer); ok {
		// Not under wmu: a write blocked on a server that stopped reading
		// must not keep Close from ending it.
		closeErr = wc.Close()
	}
	select {
	case <-c.done:
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

func (c *Client) send(m *message) error {
	line, err := encode(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(line)
	return err
}

func (c *Client) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// fail records the first reason the connection broke and wakes every call.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.broken)
	}
}

// readLoop reads until the end of r. After a protocol error it keeps
// draining, so a chatty server never blocks on a full stdout pipe.
func (c *Client) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 && c.Err() == nil {
			c.dispatch(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: read: %v", ErrClosed, err)
			} else {
				err = ErrClosed
			}
			c.fail(err)
			return
		}
	}
}

func (c *Client) dispatch(line []byte) {
	m, err := decode(line)
	if err != nil {
		c.fail(err)
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		// A server-to-client request: this client offers no capabilities.
		// Reply off the read loop so a full stdin pipe cannot stall reading.
		reply := &message{ID: m.ID, Error: &RPCError{Code: codeMethodNotFound, Message: "method not found: " + m.Method}}
		go func() { _ = c.send(reply) }()
	case m.Method != "":
		c.mu.Lock()
		c.notes = append(c.notes, Notification{Method: m.Method, Params: m.Params})
		c.mu.Unlock()
	default:
		id, ok := responseID(m.ID)
		if !ok {
			c.fail(fmt.Errorf("%w: response id %s was never sent", ErrProtocol, m.ID))
			return
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id) // a second answer to the same id is dropped
		c.mu.Unlock()
		if ch != nil {
			ch <- m // buffered 1, and only ever one send per id
		}
		// A response to a call that already timed out is dropped.
	}
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return json.Marshal(params)
}
