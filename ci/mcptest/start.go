package mcptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// CloseTimeout bounds how long Run waits, after drive, for the server to
// exit on the end of its stdin before the run is ended: a failed spec
// (whose context may be cancelled already) still gets the Result.
const CloseTimeout = 10 * time.Second

// Server is a stdio MCP server running as the agent of a gated run
// (Start). Its Client's errors end with the server's stderr, and with how
// the run ended when it ended early. Close ends the session and returns
// the run's Result.
type Server struct {
	*Client
	name   string
	agent  harness.Agent // as run: NoteAgentFiles reads its Dir and Command
	stderr *stderrTail
	cancel context.CancelFunc // ends the run: its tree is killed

	runDone chan struct{} // closed once result and runErr are set
	result  *verdict.Result
	runErr  error

	closeOnce sync.Once
	closeErr  error
}

// Start runs agent under the gate as a stdio MCP server: harness.Run
// with the agent's stdin and stdout as the protocol's pipes, and a Client
// on their other ends. It does not initialize: call Initialize first (Run
// does), then ListTools and CallTool, and Close to end the session and
// get the run's Result.
//
// As gatetest.Run does, Start applies the options the environment asks
// for ($SYSGATE_MODE, $SYSGATE_BACKEND, ... : gatetest.EnvOptions) before
// opts, so the spec's own win, and a variable it cannot read is an error
// before anything runs; Close puts the Result into the running Ginkgo
// spec's report (gatetest.ReportResult). agent.Stdin and agent.Stdout
// must be nil: they are the protocol's. agent.Stderr, if set, gets the
// server's stderr as well.
//
// ctx bounds the whole run, as harness.Run's does: when it ends, the
// server's tree is killed and the Result is inconclusive. Each call is
// bounded by its own ctx (or the Client's Timeout).
func Start(ctx context.Context, agent harness.Agent, opts ...harness.Option) (*Server, error) {
	name := harness.AgentName(agent)
	if agent.Stdin != nil || agent.Stdout != nil {
		return nil, fmt.Errorf("mcptest.Start %s: Agent.Stdin and Agent.Stdout are the protocol's pipes: leave them nil", name)
	}
	env, err := gatetest.EnvOptions(name, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("mcptest.Start %s: %w", name, err)
	}
	s := &Server{name: name, agent: agent, stderr: &stderrTail{}, runDone: make(chan struct{})}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	agent.Stdin, agent.Stdout = stdinR, stdoutW
	if agent.Stderr != nil {
		agent.Stderr = io.MultiWriter(agent.Stderr, s.stderr)
	} else {
		agent.Stderr = s.stderr
	}
	var runCtx context.Context
	runCtx, s.cancel = context.WithCancel(ctx)
	go func() {
		defer close(s.runDone)
		s.result, s.runErr = harness.Run(runCtx, agent, append(env, opts...)...)
		// The server is gone: end the client's stdout, and fail a write
		// to its stdin instead of blocking it.
		_ = stdoutW.Close()
		_ = stdinR.Close()
	}()
	s.Client = NewClient(stdinW, stdoutR)
	s.annotate = s.explainFailure
	return s, nil
}

// explainFailure adds how the run ended, when it ended already, and the
// end of the server's stderr to a failed call. The client's stdout ends
// when the run did (Start's goroutine closes it after harness.Run, which
// returns once it copied all of the server's stderr); a call that failed
// for that waits for the goroutine to finish (at most settleTimeout), so
// the error holds the server's last words and its exit.
func (s *Server) explainFailure(err error) error {
	if errors.Is(err, ErrClosed) {
		settle(s.runDone)
	}
	select {
	case <-s.runDone:
		switch {
		case s.runErr != nil && s.result == nil:
			// The server never started (a baseline that does not load,
			// a command not found): the pipe closing is no news, the
			// run's error is the whole story.
			return withStderr(fmt.Errorf("the run of %s failed before the server started: %w", s.name, s.runErr), s.stderr)
		case s.runErr != nil:
			err = fmt.Errorf("%w: the run of %s failed: %w", err, s.name, s.runErr)
		case s.result != nil:
			err = fmt.Errorf("%w: the server %s %s", err, s.name, ci.ExitText(s.result))
		}
	default:
	}
	return withStderr(err, s.stderr)
}

// Stderr returns what the server wrote to stderr so far (its last 64 KiB).
func (s *Server) Stderr() string { return s.stderr.String() }

// Close ends the session as the stdio transport does: it closes the
// server's stdin, waits for the server to close its stdout, and waits for
// the run to end, which returns its Result (also put into the running
// Ginkgo spec's report, and the files the server used become inputs of
// Go's test cache: gatetest.NoteAgentFiles). When the server does not exit before ctx ends
// (or the Client's Timeout, without a deadline), the run is ended, its
// tree killed, and the Result is inconclusive.
//
// The error is the first of: a protocol error seen on the way, a server
// that did not exit in time, harness.Run's own error. A violation is no
// error: it is in the Result (gatetest.StayWithinBaseline). Close may be
// called more than once; later calls return what the first did.
func (s *Server) Close(ctx context.Context) (*verdict.Result, error) {
	s.closeOnce.Do(func() {
		clientErr := s.Client.Close(ctx)
		if clientErr != nil {
			s.cancel()
		}
		<-s.runDone
		s.cancel()
		gatetest.NoteAgentFiles(s.agent, s.result)
		gatetest.ReportResult(s.result)
		switch {
		case clientErr != nil:
			s.closeErr = withStderr(fmt.Errorf("mcptest: close %s: %w", s.name, clientErr), s.stderr)
		case s.runErr != nil:
			s.closeErr = withStderr(fmt.Errorf("mcptest: run %s: %w", s.name, s.runErr), s.stderr)
		}
	})
	return s.result, s.closeErr
}

// Run starts agent under the gate as a stdio MCP server (Start),
// initializes it, lets drive talk to it, and closes it, returning the
// run's Result. However drive ends, with an error or a panic (a failed
// Gomega assertion in a Ginkgo spec), the server is told to exit and the
// run is waited for (at most CloseTimeout past drive, then ended), so its
// Result is in the spec's report and no process outlives the spec.
//
// The error is the first of: Start's, Initialize's, drive's, Close's. The
// Result is nil only when Start failed.
func Run(ctx context.Context, agent harness.Agent, drive func(context.Context, *Client) error, opts ...harness.Option) (result *verdict.Result, err error) {
	s, err := Start(ctx, agent, opts...)
	if err != nil {
		return nil, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CloseTimeout)
		defer cancel()
		var closeErr error
		result, closeErr = s.Close(closeCtx)
		if err == nil {
			err = closeErr
		}
	}()
	if _, err := s.Initialize(ctx, Implementation{}); err != nil {
		return nil, fmt.Errorf("mcptest: initialize %s: %w", s.name, err)
	}
	if err := drive(ctx, s.Client); err != nil {
		return nil, fmt.Errorf("mcptest: %s: %w", s.name, err)
	}
	return nil, nil
}
