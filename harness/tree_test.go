package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/harness/proc"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

type treeRun struct {
	ses     uint32
	outcome proc.Outcome
	stdout  string
	status  syscall.WaitStatus
}

// runTree launches args through the shim with a log-everything filter and
// supervises its tree; no audit stream is involved.
func runTree(t *testing.T, timeout, grace time.Duration, args ...string) treeRun {
	t.Helper()
	return runTreeIn(t, true, timeout, grace, args...)
}

// runTreeIn is runTree with or without the run's own PID namespace (the
// fallback where the kernel refuses one).
func runTreeIn(t *testing.T, pidns bool, timeout, grace time.Duration, args ...string) treeRun {
	t.Helper()
	testutil.RequireAudit(t)
	// As Run does: a test that forces a machine-wide fault (a process
	// hidden under /proc, say) holds the kernel exclusively meanwhile.
	release, err := auditctl.AcquireTuning()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var stdout bytes.Buffer
	cfg := &kernel.AgentSetup{Path: args[0], Args: args, Env: os.Environ(), LoginUID: uint32(os.Getuid()),
		Program: kernel.LogAllProgram, Listener: allowAll, NewSession: true, PidNamespace: pidns} // as Run sets it up
	if cfg.DropCaps, err = fencedMask(nil); err != nil {
		t.Fatal(err)
	}
	s, err := startVfork(cfg, nil, &stdout, os.Stderr)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	run, err := serveListener(s.listener, nil)
	if err != nil {
		t.Fatalf("serve listener: %v", err)
	}
	defer run.Close()
	if err := s.release(context.Background(), nil); err != nil {
		t.Fatalf("release: %v", err)
	}
	out := proc.Supervise(context.Background(), proc.NewRoot(s.pidfd, s.pid, s.initPidfd, s.initPid, s.initPid > 0), proc.NewMembers(s.ses, true, 0), run, timeout, grace)
	status, _, _ := s.wait(context.Background())
	s.closePidfd()
	if out.Err != nil {
		t.Fatalf("tracking: %v", out.Err)
	}
	if left, err := kernel.SessionMembers(s.ses); err != nil || len(left) > 0 {
		t.Fatalf("processes of session %d left after supervision: %+v (%v)", s.ses, left, err)
	}
	return treeRun{ses: s.ses, outcome: out, stdout: stdout.String(), status: status}
}

func TestShimGivesAgentFreshSessionWithoutAuditControl(t *testing.T) {
	r := runTree(t, 10*time.Second, time.Second, "/bin/sh", "-c",
		`cat /proc/self/sessionid; echo; grep CapEff /proc/self/status; grep CapBnd /proc/self/status; `+
			`if echo 0 2>/dev/null > /proc/self/loginuid; then echo rewrite=ok; else echo rewrite=denied; fi; cat /proc/self/sessionid`)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 5 {
		t.Fatalf("agent output %q", r.stdout)
	}
	if lines[0] != strconv.FormatUint(uint64(r.ses), 10) || lines[4] != lines[0] {
		t.Errorf("agent session %q then %q; shim reported %d", lines[0], lines[4], r.ses)
	}
	if r.ses == kernel.UnsetSession {
		t.Errorf("agent has no audit session")
	}
	for _, l := range lines[1:3] {
		mask, err := strconv.ParseUint(strings.TrimSpace(strings.SplitN(l, ":", 2)[1]), 16, 64)
		if err != nil || mask&(1<<capAuditControl) != 0 {
			t.Errorf("%s: CAP_AUDIT_CONTROL still held (%v)", l, err)
		}
	}
	if lines[3] != "rewrite=denied" {
		t.Errorf("root agent rewrote its loginuid: %q", lines[3])
	}
}

// A root agent holds none of FencedCapabilities in any of the five sets,
// and sees /proc/sys, /sys and everything mounted below them read-only in
// a mount namespace of its own, while / stays as it was.
func TestShimFencesRootAgent(t *testing.T) {
	r := runTree(t, 10*time.Second, time.Second, "/bin/sh", "-c",
		`grep ^Cap /proc/self/status; readlink /proc/self/ns/mnt; `+
			`awk '$5 == "/" || $5 == "/proc/sys" || $5 ~ "^/proc/sys/" || $5 == "/sys" || $5 ~ "^/sys/" { print "mount", $5, $6 }' /proc/self/mountinfo`)
	ours, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	var fenced uint64
	for _, f := range FencedCapabilities {
		fenced |= 1 << f.Cap
	}
	seen := map[string]bool{}
	// A mount point may list a shadowed mount first (/sys, bound onto
	// itself): the last entry for it is the one the agent sees.
	top := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "Cap"):
			mask, err := strconv.ParseUint(f[1], 16, 64)
			if err != nil || mask&fenced != 0 {
				t.Errorf("%s: holds fenced capabilities %#x (%v)", l, mask&fenced, err)
			}
			seen[strings.TrimSuffix(f[0], ":")] = true
		case strings.HasPrefix(l, "mnt:"):
			if l == ours {
				t.Errorf("agent shares our mount namespace %s", l)
			}
			seen["ns"] = true
		case f[0] == "mount":
			top[f[1]] = f[2]
			seen[f[1]] = true
		}
	}
	for point, opts := range top {
		ro := slices.Contains(strings.Split(opts, ","), "ro")
		if want := point != "/"; ro != want {
			t.Errorf("%s mounted %s in the agent's namespace; read-only wanted: %v", point, opts, want)
		}
	}
	for _, want := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "ns", "/", "/proc/sys", "/sys"} {
		if !seen[want] {
			t.Errorf("no %s in the agent's output:\n%s", want, r.stdout)
		}
	}
}

func TestShimReportsMissingCommand(t *testing.T) {
	testutil.RequireAudit(t)
	for _, path := range []string{"sysgate-no-such-command", "/nonexistent/agent"} {
		cfg := &kernel.AgentSetup{Path: path, Args: []string{path}, Env: os.Environ(), Program: kernel.LogAllProgram}
		s, err := startVfork(cfg, nil, nil, nil)
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		err = s.release(context.Background(), nil)
		if !errors.Is(err, ErrAgentStart) || !strings.Contains(err.Error(), path) {
			t.Fatalf("release = %v; want ErrAgentStart for %s", err, path)
		}
	}
}

func TestTreeWaitsForOrphanToFinish(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	r := runTree(t, 10*time.Second, 10*time.Second, "/bin/sh", "-c",
		`(sleep 0.3; echo orphan-done > `+mark+`) >/dev/null &`) // off the stdout pipe: only the tree wait can wait for it
	if len(r.outcome.Leaked) != 0 || r.outcome.TimedOut {
		t.Fatalf("outcome %+v", r.outcome)
	}
	b, err := os.ReadFile(mark)
	if err != nil || strings.TrimSpace(string(b)) != "orphan-done" {
		t.Fatalf("orphan did not finish before supervision ended: %q %v", b, err)
	}
}

func TestTreeKillsDaemonAfterGrace(t *testing.T) {
	// The agent leaves once its child runs sleep (not the subshell
	// before its exec), so the grace ends on a sleep at any load.
	r := runTree(t, 10*time.Second, 300*time.Millisecond, "/bin/sh", "-c",
		`(exec sleep 1000 </dev/null >/dev/null 2>&1) & p=$!; until [ "$(cat /proc/$p/comm)" = sleep ]; do :; done`)
	if len(r.outcome.Leaked) != 1 {
		t.Fatalf("leaked %+v; want the one sleep", r.outcome.Leaked)
	}
	l := r.outcome.Leaked[0]
	if l.Comm != "sleep" || !strings.HasSuffix(l.Exe, "sleep") || l.Cause != verdict.CauseOutlived || l.Lived <= 0 {
		t.Errorf("leak %+v", l)
	}
	if r.outcome.TimedOut {
		t.Errorf("outcome %+v: the grace, not the timeout, should have ended it", r.outcome)
	}
}

func TestTreeTimeoutKillsWholeTree(t *testing.T) {
	// Both sleeps are up well before the timeout (a loaded machine took
	// more than the 300 ms this test gave to start the second); the
	// agent then waits for them.
	r := runTree(t, 2*time.Second, time.Second, "/bin/sh", "-c",
		`sleep 1000 & a=$!; sleep 1000 & b=$!; until [ "$(cat /proc/$a/comm /proc/$b/comm)" = "sleep
sleep" ]; do :; done; wait`)
	if !r.outcome.TimedOut {
		t.Fatalf("outcome %+v; want a timeout", r.outcome)
	}
	if len(r.outcome.Leaked) != 2 {
		t.Errorf("killed %+v; want both sleeps", r.outcome.Leaked)
	}
	for _, l := range r.outcome.Leaked {
		if l.Cause != verdict.CauseTimeout {
			t.Errorf("leak %+v: cause", l)
		}
	}
	if !r.status.Signaled() || r.status.Signal() != syscall.SIGKILL {
		t.Errorf("root exit %#x; want killed", r.status)
	}
}

// A child abandoned before its go-ahead must exit and free the process's
// fork lock (the vfork launcher holds it until the child execs or exits).
func TestAbortBeforeRelease(t *testing.T) {
	testutil.RequireAudit(t)
	cfg := &kernel.AgentSetup{Path: "/bin/true", Args: []string{"/bin/true"}, Env: os.Environ(), Program: kernel.LogAllProgram}
	s, err := startVfork(cfg, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.abort()
	done := make(chan error, 1)
	go func() { done <- exec.Command("/bin/true").Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fork lock still held after abort")
	}
	if left, err := kernel.SessionMembers(s.ses); err != nil || len(left) > 0 {
		t.Fatalf("aborted child still there: %+v %v", left, err)
	}
}

// hopper is a Python fork-hopping chain: the first process exits at once,
// each generation forks its successor and exits, for secs seconds; the
// last one writes mark.
func hopper(t *testing.T, secs float64, mark string) []string {
	// fd 1 is the harness's stdout pipe: closed, so waiting for the pipe
	// cannot stand in for waiting for the chain.
	return []string{testutil.Python(t), "-c", fmt.Sprintf(`import os, time
os.close(1)
end = time.monotonic() + %g
while True:
    if os.fork():
        os._exit(0)
    if time.monotonic() > end:
        break
open(%q, "w").write("hop-done")
`, secs, mark)}
}

func TestTreeWaitsForAForkHoppingChain(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	r := runTree(t, 10*time.Second, 10*time.Second, hopper(t, 0.5, mark)...)
	if len(r.outcome.Leaked) != 0 || r.outcome.TimedOut {
		t.Fatalf("outcome %+v", r.outcome)
	}
	if b, err := os.ReadFile(mark); err != nil || string(b) != "hop-done" {
		t.Fatalf("supervision ended before the chain did: %q %v", b, err)
	}
}

func TestTreeKillsAForkHoppingChainAfterGrace(t *testing.T) {
	for _, pidns := range []bool{true, false} {
		t.Run(fmt.Sprintf("pidns=%v", pidns), func(t *testing.T) { testKillsAHopper(t, pidns) })
	}
}

func testKillsAHopper(t *testing.T, pidns bool) {
	mark := filepath.Join(t.TempDir(), "mark")
	r := runTreeIn(t, pidns, 10*time.Second, 200*time.Millisecond, hopper(t, 60, mark)...)
	if len(r.outcome.Leaked) == 0 {
		t.Fatalf("outcome %+v; want the chain killed and reported", r.outcome)
	}
	for _, l := range r.outcome.Leaked {
		if l.Cause != verdict.CauseOutlived {
			t.Errorf("leak %+v: cause", l)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the chain finished: it was never killed")
	}
}

// A root agent cannot make a block device node (CAP_MKNOD) nor chmod a
// file another user owns (CAP_FOWNER): issue 43, item 5. Its own files it
// still chmods.
func TestRootAgentCannotMknodBlockOrChmodOthersFiles(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	r := runTree(t, 10*time.Second, time.Second, "/bin/sh", "-c",
		`mknod `+dir+`/blk b 7 0 2>&1; echo "mknod=$?"; chmod 600 `+other+` 2>&1; echo "chmod=$?"; `+
			`touch `+dir+`/mine && chmod 600 `+dir+`/mine; echo "own=$?"`)
	for _, want := range []string{"Operation not permitted", "mknod=1", "chmod=1", "own=0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("agent output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "blk")); err == nil {
		t.Error("the agent made a block device node")
	}
	if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("another user's file: %v, %v; want mode 0644 untouched", fi.Mode(), err)
	}
}
