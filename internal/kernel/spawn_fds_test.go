//go:build linux && cgo

package kernel

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// readlinks spawns `readlink /proc/self/fd/N...` with cfg's kept
// descriptors and returns what it printed and its exit status: readlink
// opens nothing of its own, so a link it resolves is a descriptor the
// agent was started with, and a missing one makes it exit 1.
func readlinks(t *testing.T, cfg *SpawnConfig, fds ...int) (string, int) {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	args := []string{"readlink"}
	for _, fd := range fds {
		args = append(args, fmt.Sprintf("/proc/self/fd/%d", fd))
	}
	cfg.AgentSetup = AgentSetup{Path: "/bin/readlink", Args: args, Program: allowAll, KeepFds: cfg.KeepFds}
	cfg.Stdio = [3]int{0, int(outW.Fd()), 0}
	h := spawnHeld(t, cfg)
	if _, err := h.controlW.Write([]byte{'g'}); err != nil {
		t.Fatal(err)
	}
	h.controlW.Close()
	s := <-h.done
	outW.Close()
	if s.err != nil {
		t.Fatal(s.err)
	}
	defer unix.Close(s.pidfd)
	out, err := io.ReadAll(outR)
	if err != nil {
		t.Fatal(err)
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(s.pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	return string(out), ws.ExitStatus()
}

// inheritablePipe returns a pipe's read end without close-on-exec, as a
// careless parent holds one, and the "pipe:[INODE]" /proc shows for it.
func inheritablePipe(t *testing.T) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	fd := int(r.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		t.Fatal(err)
	}
	return fd, target
}

func TestSpawnClosesInheritableDescriptors(t *testing.T) {
	testutil.RequireAudit(t)
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprintf("cloexecLoop=%v", loop), func(t *testing.T) {
			fd, _ := inheritablePipe(t)
			out, status := readlinks(t, &SpawnConfig{cloexecLoop: loop}, fd)
			if status != 1 || out != "" {
				t.Fatalf("the agent resolved its fd %d (exit %d): %q; want it closed", fd, status, out)
			}
		})
	}
}

func TestSpawnKeepsNamedDescriptorsAtTheirSlots(t *testing.T) {
	testutil.RequireAudit(t)
	fd, target := inheritablePipe(t)
	// fd 3: a gap (closed); 4: the inheritable pipe; 5: a close-on-exec
	// descriptor of ours; 6: our fd 1, a source the child's stdio set-up
	// overwrites (Spawn moves it out of the way first).
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	cloexecTarget, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.Fd()))
	stdoutTarget, _ := os.Readlink("/proc/self/fd/1")
	out, status := readlinks(t, &SpawnConfig{AgentSetup: AgentSetup{KeepFds: []int{-1, fd, int(r.Fd()), 1}}}, 4, 5, 6)
	if status != 0 {
		t.Fatalf("readlink exit %d: %q", status, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if want := []string{target, cloexecTarget, stdoutTarget}; !slices.Equal(lines, want) {
		t.Fatalf("fds 4, 5 and 6 are %q; want %q", lines, want)
	}
	out, status = readlinks(t, &SpawnConfig{AgentSetup: AgentSetup{KeepFds: []int{-1, fd}}}, 3)
	if status != 1 {
		t.Fatalf("the gap at fd 3 is open in the agent: %q", out)
	}
}
