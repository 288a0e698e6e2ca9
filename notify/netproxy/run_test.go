package netproxy

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/notifytest"
	"github.com/sysgate/sysgate/internal/testutil"
)

// served is what one child run produced: its line per op, and every
// access the proxy reported.
type served struct {
	lines    []string
	accesses []Access
}

// runChild runs ops in a held child (see childMain), as cred when not
// nil, and serves its listener with a Proxy and decide; calls the proxy
// does not handle are continued.
func runChild(t testing.TB, cred *syscall.Credential, decide func(Access) bool, ops ...string) served {
	t.Helper()
	exe := testBinary(t, cred != nil)
	var pidfd int
	cmd := exec.Command(exe, append([]string{childArg}, ops...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, PidFD: &pidfd}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	defer unix.Close(pidfd)
	out := bufio.NewReader(stdout)
	first, err := out.ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("child: %v (stderr: %s)", err, stderr.String())
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(first, "listener ")))
	if err != nil {
		t.Fatalf("child said %q", first)
	}
	lfd, err := kernel.PidfdGetfd(pidfd, n)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lfd)
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}

	var res served
	var mu sync.Mutex
	var serveErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveErr = notifytest.ServeUntilHangUp(lfd, func(notif *kernel.SeccompNotif) (bool, error) {
			handled, acc, err := p.Serve(notif, lfd, decide)
			mu.Lock()
			res.accesses = append(res.accesses, acc...)
			mu.Unlock()
			return handled, err
		})
		if serveErr != nil {
			// Nobody answers the child's held call now: end it.
			cmd.Process.Kill()
		}
	}()
	io.WriteString(stdin, "go\n")
	rest, _ := io.ReadAll(out)
	werr := cmd.Wait()
	<-done
	if err := p.Close(); err != nil {
		t.Errorf("proxy: %v", err)
	}
	if serveErr != nil {
		t.Fatalf("serve: %v", serveErr)
	}
	if werr != nil {
		t.Fatalf("child: %v (stderr: %s)", werr, stderr.String())
	}
	res.lines = strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n")
	if len(res.lines) != len(ops) {
		t.Fatalf("child printed %q for ops %q", res.lines, ops)
	}
	return res
}

// asBothCallers runs f with a caller of the test's own uid and, as
// root, with one of uid 65534 (cred as runChild takes it).
func asBothCallers(t *testing.T, f func(*testing.T, *syscall.Credential)) {
	t.Run("same uid", func(t *testing.T) { f(t, nil) })
	t.Run("uid 65534", func(t *testing.T) {
		testutil.RequireRoot(t)
		f(t, &syscall.Credential{Uid: 65534, Gid: 65534})
	})
}

// testBinary is this test binary; for a child of another uid, a copy
// that uid can run (the build directory is root's alone).
func testBinary(t testing.TB, shared bool) string {
	t.Helper()
	if !shared {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		return exe
	}
	return testutil.SharedTestBinary(t, worldDir(t), "child")
}

// worldDir is a fresh directory anyone may enter, symlinks resolved.
func worldDir(t testing.TB) string { return testutil.WorldDir(t, "netproxy") }
