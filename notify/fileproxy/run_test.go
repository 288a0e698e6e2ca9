package fileproxy

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
func runChild(t *testing.T, cred *syscall.Credential, decide func(Access) bool, ops ...string) served {
	t.Helper()
	return runChildAttr(t, &syscall.SysProcAttr{Credential: cred}, decide, ops...)
}

// runChildAttr is runChild with the child's attributes (namespaces).
func runChildAttr(t *testing.T, attr *syscall.SysProcAttr, decide func(Access) bool, ops ...string) served {
	t.Helper()
	exe := testBinary(t, attr.Credential != nil || attr.Cloneflags != 0)
	var pidfd int
	cmd := exec.Command(exe, append([]string{childArg}, ops...)...)
	cmd.SysProcAttr = attr
	attr.PidFD = &pidfd
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
	defer p.Close()

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

// testBinary is this test binary; for a child of another uid, a copy
// that uid can run (the build directory is root's alone).
func testBinary(t *testing.T, shared bool) string {
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
func worldDir(t testing.TB) string { return testutil.WorldDir(t, "fileproxy") }

// files writes each name (relative to dir) with its own base name as
// content, mode 0644.
func files(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(filepath.Base(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func allowAll(Access) bool { return true }

// denyPath refuses every access to path.
func denyPath(path string) func(Access) bool {
	return func(a Access) bool { return a.Path != path }
}

func has(accesses []Access, want Access) bool {
	for _, a := range accesses {
		if a == want {
			return true
		}
	}
	return false
}
