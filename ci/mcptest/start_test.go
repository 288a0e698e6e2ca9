package mcptest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// These tests run the fake server under the gate on the notify backend,
// which needs no privilege: a record run, so no baseline is involved and
// what the server did shows in Observed.

func requireNotify(t *testing.T) {
	t.Helper()
	if why := harness.NotifyUnavailable(); why != "" {
		testutil.Unavailable(t, "notify", "the notify backend: "+why)
	}
}

// gatedFake is the fake server as a gated run's agent, and the options
// of a record run on the notify backend.
func gatedFake(t *testing.T, env ...string) (harness.Agent, []harness.Option) {
	t.Helper()
	requireNotify(t)
	agent := harness.Agent{
		Name:    "fake-mcp",
		Command: []string{fakeExe(t)},
		Dir:     t.TempDir(),
		Env:     append([]string{fakeServerEnv + "=1"}, env...),
	}
	opts := []harness.Option{
		harness.WithBackend(verdict.BackendNotify),
		harness.WithMode(baseline.ModeRecord),
		harness.WithTimeout(time.Minute),
	}
	return agent, opts
}

// The Result is the run of the server the client drove: what a tool call
// made it do is in it, and is not when the call is not made.
func TestRunResultHoldsWhatTheToolsDid(t *testing.T) {
	for _, callMkdir := range []bool{true, false} {
		agent, opts := gatedFake(t)
		dir := filepath.Join(agent.Dir, "made")
		result, err := Run(context.Background(), agent, func(ctx context.Context, c *Client) error {
			if text, err := c.CallText(ctx, "echo", map[string]string{"text": "hi"}); err != nil || text != "hi" {
				return errors.Join(err, errors.New("echo answered "+text))
			}
			if !callMkdir {
				return nil
			}
			_, err := c.CallText(ctx, "mkdir", map[string]string{"path": dir})
			return err
		}, opts...)
		if err != nil {
			t.Fatalf("mkdir %v: %v", callMkdir, err)
		}
		if !result.Conclusive() || result.ExitStatus != 0 || result.Backend != verdict.BackendNotify {
			t.Fatalf("mkdir %v: result %s: want a conclusive notify run that exited 0", callMkdir, ci.Summary(result))
		}
		if result.Saw("mkdirat") != callMkdir {
			t.Errorf("mkdir %v: run saw mkdirat = %v", callMkdir, result.Saw("mkdirat"))
		}
		if _, err := os.Stat(dir); (err == nil) != callMkdir {
			t.Errorf("mkdir %v: %s on disk: %v", callMkdir, dir, err)
		}
	}
}

// A server that crashes: the call's error says how the run ended and
// quotes its stderr; Close returns the Result of the failed agent.
func TestStartCrashedServer(t *testing.T) {
	agent, opts := gatedFake(t)
	ctx := context.Background()
	s, err := Start(ctx, agent, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Initialize(ctx, Implementation{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.CallTool(ctx, "crash", nil)
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "exited 3") || !strings.Contains(err.Error(), "crashing as asked") {
		t.Fatalf("crash = %v, want ErrClosed naming exit 3 and the stderr", err)
	}
	result, err := s.Close(ctx)
	if err != nil {
		t.Fatalf("close: %v", err)
	}
	if result == nil || result.ExitStatus != 3 {
		t.Fatalf("result = %v, want the agent's exit 3", result)
	}
	again, err := s.Close(ctx)
	if again != result || err != nil {
		t.Fatalf("second Close = %p, %v; want the first's %p", again, err, result)
	}
}

// However drive ends, a panic included (a failed Gomega assertion), the
// server is told to exit and the run is waited for.
func TestRunClosesWhenDrivePanics(t *testing.T) {
	agent, opts := gatedFake(t)
	var stderr stderrTail
	agent.Stderr = &stderr
	func() {
		defer func() {
			if r := recover(); r != "assertion failed" {
				t.Fatalf("recovered %v, want drive's panic", r)
			}
		}()
		_, _ = Run(context.Background(), agent, func(context.Context, *Client) error { panic("assertion failed") }, opts...)
	}()
	// The run ended before Run's panic went on: the server saw the end of
	// its stdin, and harness.Run copied all its stderr before returning.
	if !strings.Contains(stderr.String(), "fake: end of stdin") {
		t.Fatalf("server stderr %q: want it to have seen the end of its stdin", stderr.String())
	}
}

// A server that keeps running after the end of its stdin: Close ends
// the run when its context does, and the Result says it timed out.
func TestCloseEndsAServerThatKeepsRunning(t *testing.T) {
	agent, opts := gatedFake(t, fakeLingerEnv+"=1")
	s, err := Start(context.Background(), agent, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Initialize(context.Background(), Implementation{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	result, err := s.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("close = %v, want DeadlineExceeded", err)
	}
	if result == nil || result.Conclusive() {
		t.Fatalf("result = %v, want an inconclusive run that was ended", result)
	}
}

func TestStartRefuses(t *testing.T) {
	agent := harness.Agent{Name: "x", Command: []string{"true"}, Stdout: &stderrTail{}}
	if _, err := Start(context.Background(), agent); err == nil || !strings.Contains(err.Error(), "leave them nil") {
		t.Errorf("Start with Stdout set = %v, want refused", err)
	}
	t.Setenv("SYSGATE_MODE", "record")
	t.Setenv("SYSGATE_OBSERVATIONS", "")
	agent.Stdout = nil
	if _, err := Start(context.Background(), agent); err == nil || !strings.Contains(err.Error(), "SYSGATE_OBSERVATIONS") {
		t.Errorf("Start with SYSGATE_MODE=record alone = %v, want the missing variable named", err)
	}
}

// A first baseline holding only version and agent: the error is the
// run's, naming the file and how to fill it (seed the runtime's layer),
// not a closed pipe.
func TestEmptyBaselineSaysHowToSeedIt(t *testing.T) {
	agent, opts := gatedFake(t)
	path := filepath.Join(t.TempDir(), "my-server.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nagent: fake-mcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts = append(opts, harness.WithMode(baseline.ModeCheck), harness.WithBaselines(path))
	_, err := Run(context.Background(), agent, func(context.Context, *Client) error { return nil }, opts...)
	if err == nil {
		t.Fatal("an empty baseline ran")
	}
	msg := err.Error()
	for _, want := range []string{"mcptest: initialize fake-mcp: the run of fake-mcp failed before the server started", path, "empty baseline", "sysgate record --runtime node -o baselines/runtimes/node.yaml", "extends"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "closed pipe") {
		t.Errorf("error leads with the pipe, not the baseline:\n%s", msg)
	}
}
