package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// workload is one command measured in every way. mcpCalls > 0 makes it a
// stdio MCP server driven with that many tool calls.
type workload struct {
	name     string
	command  []string
	dir      string
	env      []string
	mcpCalls int
	// perCall: the command prints its own ns per syscall on stdout, which
	// is the figure compared (the loop alone, not process start-up).
	perCall bool
	// per is what one iteration of a perCall loop is: "call" unless set
	// ("pair" for openat+close, "exec" for the exec loop).
	per string
	// opts go to every harness.Run of the workload, before the caller's
	// (the network section's loopback resolver).
	opts []harness.Option
}

// measurement is one run: wall time, and the in-loop ns/call if printed.
type measurement struct {
	wall    time.Duration
	perCall float64
	cpu     time.Duration // user+sys of the command and its reaped children (plain runs only)
}

func cpuOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// value is what the table compares: ns/call or wall milliseconds.
func (w workload) value(m measurement) float64 {
	if w.perCall {
		return m.perCall
	}
	return ms(m.wall)
}

func (w workload) unit() string {
	switch {
	case w.perCall && w.per != "":
		return "ns/" + w.per
	case w.perCall:
		return "ns/call"
	}
	return "ms"
}

// runPlain runs the workload's command behind prefix (nothing, strace, the
// filter loader) without the harness.
func (w workload) runPlain(ctx context.Context, prefix ...string) (measurement, error) {
	args := append(append([]string{}, prefix...), w.command...)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir, cmd.Env = w.dir, w.env
	if w.mcpCalls > 0 {
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return measurement{}, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return measurement{}, err
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return measurement{}, err
		}
		derr := drive(ctx, newMCPConn(stdin, stdout), w)
		werr := cmd.Wait()
		if err := errors.Join(derr, werr); err != nil {
			return measurement{}, fmt.Errorf("%s: %w: %s", w.name, err, stderr.String())
		}
		return measurement{wall: time.Since(start), cpu: cpuOf(cmd.ProcessState)}, nil
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	m := measurement{wall: time.Since(start), cpu: cpuOf(cmd.ProcessState)}
	if err != nil {
		return m, fmt.Errorf("%s: %w: %s", w.name, err, stderr.String())
	}
	return m, w.parse(&m, stdout.String())
}

func (w workload) parse(m *measurement, stdout string) error {
	if !w.perCall {
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(stdout), 64)
	if err != nil {
		return fmt.Errorf("%s: output %q: %w", w.name, stdout, err)
	}
	m.perCall = v
	return nil
}

// runGated runs the workload under harness.Run with opts; the wall time
// includes the harness's launch and barrier.
func (w workload) runGated(ctx context.Context, opts ...harness.Option) (measurement, *verdict.Result, error) {
	opts = append(append([]harness.Option{}, w.opts...), opts...)
	var stdout, stderr bytes.Buffer
	agent := harness.Agent{Name: w.name, Command: w.command, Dir: w.dir, Env: w.env, Stdout: &stdout, Stderr: &stderr}
	if w.mcpCalls == 0 {
		start := time.Now()
		r, err := harness.Run(ctx, agent, opts...)
		m := measurement{wall: time.Since(start)}
		if err != nil {
			return m, nil, err
		}
		if r.ExitStatus != 0 {
			return m, r, fmt.Errorf("%s exited %d: %s", w.name, r.ExitStatus, stderr.String())
		}
		return m, r, w.parse(&m, stdout.String())
	}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	agent.Stdin, agent.Stdout = stdinR, stdoutW
	type outcome struct {
		r   *verdict.Result
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		r, err := harness.Run(ctx, agent, opts...)
		_ = stdoutW.Close()
		_ = stdinR.Close()
		done <- outcome{r, err}
	}()
	derr := drive(ctx, newMCPConn(stdinW, stdoutR), w)
	if derr != nil {
		_ = stdoutR.Close() // unblock the agent's writes; it then ends
	}
	out := <-done
	m := measurement{wall: time.Since(start)}
	if err := errors.Join(out.err, derr); err != nil {
		return m, out.r, fmt.Errorf("%s: %w: %s", w.name, err, stderr.String())
	}
	return m, out.r, nil
}

// runOn is runGated on backend b. A result from another backend is an
// error: a row labelled notify must not have been measured on audit.
func (w workload) runOn(ctx context.Context, b verdict.Backend, opts ...harness.Option) (measurement, *verdict.Result, error) {
	m, r, err := w.runGated(ctx, append(opts[:len(opts):len(opts)], harness.WithBackend(b))...)
	if err == nil && r.Backend != b {
		err = fmt.Errorf("%s: ran on the %s backend, not %s", w.name, r.Backend, b)
	}
	return m, r, err
}

// self is this binary, re-executed as the filter loader.
func self() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}
