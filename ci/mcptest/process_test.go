package mcptest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// startFake starts the fake server outside the gate and closes it at the
// end of the test if the test did not.
func startFake(t *testing.T, env ...string) *Process {
	t.Helper()
	p, err := Exec(fakeCommand(t, env...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.Close(ctx)
	})
	return p
}

func TestExecSession(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	init, err := p.Initialize(ctx, Implementation{})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ProtocolVersion != ProtocolVersion || init.ServerInfo.Name != "fake" {
		t.Fatalf("initialize = %+v, want the fake at %s", init, ProtocolVersion)
	}
	wantEveryTool(t, p.Client)
	// Arguments as a struct encode as the object they are.
	args := struct {
		Text string `json:"text"`
	}{"a\nb \"quoted\""}
	if text, err := p.CallText(ctx, "echo", args); err != nil || text != args.Text {
		t.Fatalf("echo = %q, %v; want %q", text, err, args.Text)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	if p.cmd.ProcessState == nil || p.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("server state after Close = %v, want exited 0", p.cmd.ProcessState)
	}
}

func TestCallToolRefusesArgumentsThatAreNoObject(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	if _, err := p.Initialize(ctx, Implementation{}); err != nil {
		t.Fatal(err)
	}
	for _, args := range []any{[]string{"a"}, "path", 3} {
		if _, err := p.CallTool(ctx, "echo", args); err == nil || !strings.Contains(err.Error(), "want a JSON object") {
			t.Errorf("CallTool(echo, %#v) = %v, want a JSON object error", args, err)
		}
	}
	var nilMap map[string]any
	if text, err := p.CallText(ctx, "echo", nilMap); err != nil || text != "" {
		t.Errorf("CallText(echo, nil map) = %q, %v; want empty text and no error", text, err)
	}
}

func TestToolErrorKeepsTheToolsText(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	if _, err := p.Initialize(ctx, Implementation{}); err != nil {
		t.Fatal(err)
	}
	res, err := p.CallTool(ctx, "fail", map[string]any{"path": "/etc/shadow"})
	var te *ToolError
	if !errors.As(err, &te) || te.Text != "denied: /etc/shadow" || res == nil || !res.IsError {
		t.Fatalf("fail = %+v, %v; want the isError result and a ToolError", res, err)
	}
	if strings.Contains(err.Error(), "stderr") {
		t.Fatalf("a tool's own failure carries its text, not the server's stderr: %v", err)
	}
}

func TestCrashNamesStderrAndExit(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	if _, err := p.Initialize(ctx, Implementation{}); err != nil {
		t.Fatal(err)
	}
	_, err := p.CallTool(ctx, "crash", nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("crash: err = %v, want ErrClosed", err)
	}
	var se *StderrError
	if !errors.As(err, &se) || !strings.Contains(se.Tail, "fake: crashing as asked") {
		t.Fatalf("crash: err = %v, want the server's stderr in it", err)
	}
	// The server's text is data: its escape sequence is shown, not sent.
	if strings.Contains(err.Error(), "\x1b") || !strings.Contains(se.Tail, `\x1b[2J`) {
		t.Fatalf("stderr tail %q: want the escape shown as text", se.Tail)
	}
	err = p.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "crashing as asked") {
		t.Fatalf("close = %v, want exit status 3 and the stderr", err)
	}
}

func TestGarbageOnAServersStdout(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	if _, err := p.Initialize(ctx, Implementation{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := p.CallTool(ctx, "hang", nil); done <- err }()
	if _, err := p.CallTool(ctx, "garbage", nil); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "Server listening on stdio") {
		t.Fatalf("garbage = %v, want ErrProtocol quoting the line", err)
	}
	if err := <-done; !errors.Is(err, ErrProtocol) {
		t.Fatalf("the pending call = %v, want ErrProtocol too", err)
	}
}

func TestCallTimesOutByContext(t *testing.T) {
	p := startFake(t)
	if _, err := p.Initialize(context.Background(), Implementation{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := p.CallTool(ctx, "hang", nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "running on stdio") {
		t.Fatalf("hang = %v, want DeadlineExceeded with the server's stderr", err)
	}
	// The connection still works after a call gave up.
	if text, err := p.CallText(context.Background(), "echo", map[string]string{"text": "still here"}); err != nil || text != "still here" {
		t.Fatalf("echo after a timeout = %q, %v", text, err)
	}
}

func TestCloseKillsAServerThatKeepsRunning(t *testing.T) {
	p := startFake(t, fakeLingerEnv+"=1")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := p.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("close = %v, want DeadlineExceeded", err)
	}
	if st := p.cmd.ProcessState; st == nil || st.ExitCode() != -1 {
		t.Fatalf("server state = %v, want killed", st)
	}
}

func TestExecRefusesSetStdio(t *testing.T) {
	cmd := fakeCommand(t)
	cmd.Stderr = &strings.Builder{}
	if _, err := Exec(cmd); err == nil || !strings.Contains(err.Error(), "leave them unset") {
		t.Fatalf("Exec with Stderr set = %v, want refused", err)
	}
}
