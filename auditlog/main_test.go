package auditlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/auditnl"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The test binary doubles as the logged child: with childEnv set, TestMain
// runs loggedChild instead of the tests.
const childEnv = "SYSGATE_AUDITLOG_TEST_CHILD"

func TestMain(m *testing.M) {
	switch n := os.Getenv(childEnv); n {
	case "":
	case "crash-exclusive":
		crashHoldingExclusive()
	case "preflight":
		_, err := Preflight()
		fmt.Printf("namespace=%v\n%v\n", errors.Is(err, ErrNamespace), err)
		os.Exit(0)
	default:
		os.Unsetenv(childEnv)
		loggedChild(n)
	}
	os.Exit(m.Run())
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
	if err := os.WriteFile("/proc/thread-self/loginuid", []byte("0"), 0); err != nil {
		fail(err)
	}
	ses, err := os.ReadFile("/proc/self/sessionid")
	if err != nil {
		fail(err)
	}
	fmt.Printf("ses=%s\n", ses)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fail(err)
	}
	if err := auditnl.InstallThreadFilter(auditnl.LogOneSyscall(scmp.Native().AuditArch(), auditnl.GetppidNr, false, 0)); err != nil {
		fail(err)
	}
	for i := 0; i < n; i++ {
		auditnl.Getppid(0)
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

// crashHoldingExclusive takes ExclusiveKernel, changes the backlog and
// dies without releasing: the next locker must restore the settings.
func crashHoldingExclusive() {
	if _, err := ExclusiveKernel(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	var snap kernelSnapshot
	if _, err := readJSON(stateFile("exclusive.json"), &snap); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Printf("%d %d\n", snap.BacklogLimit, snap.BacklogWaitTime)
	if err := SetBacklog(1234, 7); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// loggedRun is one child run observed through a subscription.
type loggedRun struct {
	child *child
	evs   []*SeccompEvent
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
