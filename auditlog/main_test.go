package auditlog

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/auditlog/barrier"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The test binary doubles as the logged child: with childEnv set, TestMain
// runs loggedChild instead of the tests.
const childEnv = "SYSGATE_AUDITLOG_TEST_CHILD"

func TestMain(m *testing.M) {
	if n := os.Getenv(childEnv); n != "" {
		os.Unsetenv(childEnv)
		loggedChild(n)
	}
	os.Exit(auditctltest.RunChecked(m))
}

// loggedChild takes a fresh audit session (writing its loginuid), prints
// "ses=N", waits for a line on stdin, then makes n getppid calls under a
// filter that logs only getppid on this thread, and exits.
func loggedChild(count string) {
	runtime.LockOSThread()
	n, err := strconv.Atoi(count)
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	if err != nil {
		fail(err)
	}
	if err := kernel.SetLoginUID(0); err != nil {
		fail(err)
	}
	ses, err := kernel.SessionID()
	if err != nil {
		fail(err)
	}
	fmt.Printf("ses=%d\n", ses)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fail(err)
	}
	if err := kernel.SetNoNewPrivs(); err != nil {
		fail(err)
	}
	if err := kernel.LoadSeccompFilter(barrier.LogOneSyscall(scmp.Native().AuditArch(), kernel.GetppidNr, false, 0), 0); err != nil {
		fail(err)
	}
	for i := 0; i < n; i++ {
		kernel.Getppid(0)
	}
	os.Exit(0)
}

// child is a running loggedChild.
type child struct {
	cmd   *exec.Cmd
	ses   uint32
	stdin io.WriteCloser
}

// startChild starts a child that will make n logged getppid calls once
// go() is called.
func startChild(t testing.TB, n int) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "ses=")), 10, 32)
	if err != nil {
		t.Fatalf("child said %q", line)
	}
	return &child{cmd: cmd, ses: uint32(v), stdin: stdin}
}

// run lets the child make its syscalls and waits for it.
func (c *child) run(t testing.TB) {
	t.Helper()
	if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// loggedRun is one child run observed through a subscription.
type loggedRun struct {
	child *child
	evs   []*record.SeccompEvent
	loss  Loss
	err   error // from Subscription.Close
}

// runLogged runs a child making n logged getppid calls, subscribed to its
// session on s, and closes the subscription.
func runLogged(t *testing.T, s *Stream, n int) loggedRun {
	t.Helper()
	c := startChild(t, n)
	var got collector
	sub := s.Subscribe(c.ses, got.add)
	c.run(t)
	loss, err := sub.Close(testContext(t))
	return loggedRun{child: c, evs: got.events(), loss: loss, err: err}
}
