package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

var testAgentDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sysgate-harness-test")
	if err != nil {
		panic(err)
	}
	testAgentDir = dir
	code := auditctltest.RunChecked(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// testAgent compiles testdata/agent.c once per test binary.
var testAgent = sync.OnceValues(func() (string, error) {
	out := filepath.Join(testAgentDir, "agent")
	b, err := exec.Command("gcc", "-O1", "-o", out, "testdata/agent.c").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("gcc: %v\n%s", err, b)
	}
	return out, nil
})

func agentPath(t *testing.T) string {
	t.Helper()
	path, err := testAgent()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func mustRun(t *testing.T, agent Agent, opts ...Option) *verdict.Result {
	t.Helper()
	testutil.RequireAudit(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	r, err := Run(ctx, agent, opts...)
	cancel()
	if err != nil {
		t.Fatalf("run %v: %v", agent.Command, err)
	}
	if left, err := kernel.SessionMembers(r.Session); err != nil || len(left) > 0 {
		t.Fatalf("processes of session %d left after the run: %+v (%v)", r.Session, left, err)
	}
	return r
}

// trueBaseline records /bin/true and writes its baseline file.
func trueBaseline(t *testing.T) string {
	t.Helper()
	r := mustRun(t, Agent{Name: "true", Command: []string{"/bin/true"}})
	if r.Verdict != verdict.VerdictClean {
		t.Fatalf("record /bin/true: %s", summary(r))
	}
	path := filepath.Join(t.TempDir(), "true.yaml")
	if _, err := baseline.WriteRecorded(path, r.Observed, baseline.RecordOptions{Agent: "true"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t *testing.T, path string) *baseline.Profile {
	t.Helper()
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func violation(r *verdict.Result, arch scmp.Arch, name string) (verdict.Violation, bool) {
	for _, v := range r.Violations {
		// A syscall name finds its argument classes too.
		if v.Arch == arch && (v.Syscall == name || argclass.SyscallOf(v.Syscall) == name) {
			return v, true
		}
	}
	return verdict.Violation{}, false
}

func TestRecordThenCheckTrueIsClean(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	for i := range 2 {
		r := mustRun(t, Agent{Command: []string{"/bin/true"}}, WithBaselines(path))
		if r.Mode != baseline.ModeCheck || r.Verdict != verdict.VerdictClean || r.Events != 0 || r.ExitStatus != 0 {
			t.Fatalf("check %d: %s", i, summary(r))
		}
	}
}

// The shim's own syscalls (Go runtime, pipes, capabilities, prctl,
// seccomp) must not reach the result: recording /bin/true sees exactly
// one process whose first logged call is the execve of the agent.
func TestShimSyscallsStayOutOfResult(t *testing.T) {
	var mu sync.Mutex
	var order, notified []string
	r := mustRun(t, Agent{Command: []string{"/bin/true"}}, WithProgress(func(ev *observe.Syscall) {
		mu.Lock()
		defer mu.Unlock()
		if Notified(ev) {
			// The listener's calls (argument classes) keep their own
			// order; each must be /bin/true's, not the launcher's.
			notified = append(notified, ev.Name+" "+ev.Exe)
			return
		}
		order = append(order, ev.Name)
	}))
	// The agent's start is an exec: the listener reads its program (the
	// launcher's image makes it), and everything logged is /bin/true's.
	if len(notified) == 0 || notified[0] != "execve "+launcherExe() {
		t.Fatalf("notified calls %v; want the agent's start (execve in %s) first", notified, launcherExe())
	}
	notified = notified[1:]
	// exit_group goes to the listener too (the programs' last look at
	// /proc before the process is gone), not the log.
	if len(notified) == 0 || !strings.HasPrefix(notified[len(notified)-1], "exit_group ") || slices.Contains(order, "exit_group") {
		t.Fatalf("notified %v, logged %v; want exit_group notified last, not logged", notified, order)
	}
	if slices.Contains(order, "execve") {
		t.Errorf("event order %v: execve logged as well as notified", order)
	}
	if p, ok := programOf(r, realPath(t, "/bin/true")); !ok || p.Parent != "" {
		t.Errorf("programs %+v; want /bin/true as the agent's start", r.Programs)
	}
	// /bin/true's classed calls are all of their common class (openat
	// read-only, mmap and mprotect W^X): logged, and named by the log.
	for _, key := range []string{"openat(read)", "mmap(W^X)", "mprotect(W^X)"} {
		if r.Observed.Count(scmp.Native(), key) == 0 {
			t.Errorf("%s not observed: %v", key, r.Observed.Names(scmp.Native()))
		}
	}
	for _, n := range notified {
		if !strings.HasSuffix(n, "/true") {
			t.Errorf("notified call %q is not /bin/true's", n)
		}
	}
	if n := r.Observed.Count(scmp.Native(), "execve"); n != 1 {
		t.Errorf("%d execve; want 1", n)
	}
	if len(r.Processes) != 1 || !strings.HasSuffix(r.Processes[0].Exe, "true") {
		t.Errorf("processes %+v; want only /bin/true", r.Processes)
	}
	shimOnly := []string{"rt_sigaction", "rt_sigprocmask", "sigaltstack", "sched_getaffinity", "clone", "clone3",
		"futex", "gettid", "capget", "capset", "prctl", "seccomp", "setgroups", "pipe2", "fcntl", "epoll_ctl",
		"epoll_pwait", "madvise", "nanosleep", "sched_yield", "tgkill", "write", "chdir"}
	for _, name := range shimOnly {
		if r.Observed.Count(scmp.Native(), name) > 0 {
			t.Errorf("the shim's %s leaked into the result: %v", name, r.Observed.Names(scmp.Native()))
		}
	}
	// Where strace exists, the observed set must be exactly what /bin/true
	// makes on its own.
	if _, err := exec.LookPath("strace"); err == nil {
		want := straceSet(t, "/bin/true")
		if got := syscallNames(r.Observed.Names(scmp.Native())); !slices.Equal(got, want) {
			t.Errorf("observed %v\nstrace   %v", got, want)
		}
	}
}

func straceSet(t *testing.T, cmd string) []string {
	out, err := exec.Command("strace", "-qq", "-o", "/dev/stdout", "-e", "signal=none", cmd).Output()
	if err != nil {
		t.Fatalf("strace: %v", err)
	}
	set := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.IndexByte(line, '('); i > 0 {
			set[line[:i]] = true
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// syscallNames drops the argument classes of keys, sorted and once each:
// what strace names.
func syscallNames(keys []string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, argclass.SyscallOf(k))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestOrphanedGrandchildSocketIsViolation(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	// The real interpreter, not a version manager's shim, whose bash makes
	// syscalls of its own (socket among them, without HOME).
	py := testutil.Python(t)
	r := mustRun(t, Agent{Command: []string{"sh", "-c", `ls / >/dev/null; ("$0" -c "import socket; socket.socket()" &)`, py}},
		WithBaselines(path))
	if r.Verdict != verdict.VerdictViolation || r.ExitStatus != 0 {
		t.Fatalf("%s", summary(r))
	}
	v, ok := violation(r, scmp.Native(), "socket")
	if !ok {
		t.Fatalf("socket not reported: %s", summary(r))
	}
	if !strings.Contains(v.Exe, "python") || v.PID == 0 || v.File != path || v.Line == 0 {
		t.Errorf("socket attributed to %+v", v)
	}
	if len(r.Leaked) != 0 {
		t.Errorf("the orphan finished on its own, yet leaked: %+v", r.Leaked)
	}
}

func TestInt80IsI386ViolationNotKilled(t *testing.T) {
	if scmp.Native() != scmp.X86_64 {
		t.Skip("int $0x80 is an x86_64 compat entry")
	}
	t.Parallel()
	path := trueBaseline(t)
	runs, err := testutil.CompatEntryRuns(agentPath(t), "int80")
	if err != nil {
		t.Fatalf("probe the compat entry: %v", err)
	}
	r := mustRun(t, Agent{Command: []string{agentPath(t), "int80"}}, WithBaselines(path))
	if !runs {
		// No 32-bit entry on this kernel: the call faults before any
		// syscall runs, so there is nothing to miss. The agent must die
		// the same way under the gate, with nothing let through.
		if r.Signal != syscall.SIGSEGV.String() || r.Events != 0 {
			t.Fatalf("kernel without int $0x80: want the agent killed by SIGSEGV and nothing logged: %s", summary(r))
		}
		return
	}
	v, ok := violation(r, scmp.I386, "getpid")
	if !ok || v.Number != 20 || v.Count != 1 {
		t.Fatalf("i386 getpid not reported: %s", summary(r))
	}
	if r.ExitStatus != 0 || r.Signal != "" {
		t.Errorf("agent exit %d signal %q; the compat call must be logged, not killed", r.ExitStatus, r.Signal)
	}
}

func TestHidingAttemptsAreRisky(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	r := mustRun(t, Agent{Command: []string{agentPath(t), "hide"}}, WithBaselines(path))
	if r.ExitStatus != 0 {
		t.Fatalf("agent could not install its filters: %s", summary(r))
	}
	for name, want := range map[string]risk.Class{"seccomp": risk.Seccomp, "prctl": risk.Seccomp, "ptrace": risk.ProcessAccess} {
		v, ok := violation(r, scmp.Native(), name)
		if !ok || v.Risk != want {
			t.Errorf("%s: %+v (reported %v); want risk %s", name, v, ok, want)
		}
	}
	if len(r.Risky()) < 3 {
		t.Errorf("risky %v", r.Risky())
	}
}

func TestUnknownSyscallReportedByNumber(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	r := mustRun(t, Agent{Command: []string{agentPath(t), "marker", "1000", "3"}}, WithBaselines(path))
	v, ok := violation(r, scmp.Native(), "1000")
	if !ok || v.Number != 1000 || v.Count != 3 {
		t.Fatalf("syscall 1000 not reported by number: %s", summary(r))
	}
}

func TestDaemonIsWaitedForThenKilled(t *testing.T) {
	t.Parallel()
	r := mustRun(t, Agent{Command: []string{"sh", "-c", `(exec sleep 1000 </dev/null >/dev/null 2>&1 &)`}}, WithGrace(300*time.Millisecond))
	if len(r.Leaked) != 1 || r.Leaked[0].Comm != "sleep" || r.Leaked[0].Cause != verdict.CauseOutlived {
		t.Fatalf("leaked %+v", r.Leaked)
	}
	if r.Leaked[0].Lived < 300*time.Millisecond || r.TimedOut {
		t.Errorf("daemon lived %v (timed out: %v); want the grace period, then a kill", r.Leaked[0].Lived, r.TimedOut)
	}
	if r.Verdict != verdict.VerdictClean || r.Observed.Count(scmp.Native(), "clock_nanosleep")+r.Observed.Count(scmp.Native(), "nanosleep") == 0 {
		t.Errorf("the daemon's own syscalls are missing: %s", summary(r))
	}
}

func TestHangingAgentTimesOut(t *testing.T) {
	t.Parallel()
	// The timeout leaves the shell ample time to start both sleeps, also
	// under the race detector, whose larger process makes the launch of
	// the run's PID namespace slower (about 4 ms).
	r := mustRun(t, Agent{Command: []string{"sh", "-c", `sleep 1000 & sleep 1000`}}, WithTimeout(3*time.Second))
	if !r.TimedOut || r.Verdict != verdict.VerdictInconclusive || r.Signal != "killed" {
		t.Fatalf("%s (signal %q)", summary(r), r.Signal)
	}
	if len(r.Leaked) != 2 {
		t.Errorf("killed %+v; want both sleeps besides the shell", r.Leaked)
	}
}

func TestContextDeadlineIsTimeout(t *testing.T) {
	t.Parallel()
	testutil.RequireAudit(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, err := Run(ctx, Agent{Command: []string{"sleep", "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.Verdict != verdict.VerdictInconclusive || r.Signal != "killed" {
		t.Fatalf("%s", summary(r))
	}
}

// A root agent cannot rewrite its loginuid, so it cannot leave the run's
// session: its marker syscall after the attempt is still attributed.
func TestRootAgentCannotLeaveSession(t *testing.T) {
	r := mustRun(t, Agent{Command: []string{agentPath(t), "loginuid", "1003"}})
	if r.ExitStatus != 0 {
		t.Fatalf("loginuid write was not denied with EPERM (exit %d)", r.ExitStatus)
	}
	if r.Observed.Count(scmp.Native(), "1003") != 1 {
		t.Fatalf("marker after the attempt not attributed: %s", summary(r))
	}
}

// Eight runs at once, and a LOG-filtered process outside any run making
// its own marker calls: each run gets exactly its own events.
func TestConcurrentRunsGetOnlyTheirEvents(t *testing.T) {
	testutil.RequireAudit(t)
	agent := agentPath(t)
	noisy := exec.Command(agent, "noisy", "1999")
	if err := noisy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { noisy.Process.Kill(); noisy.Wait() }()
	defer func() {
		// The outsider must have been logging all along, or it proved nothing.
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", noisy.Process.Pid))
		if err != nil || !strings.Contains(string(status), "Seccomp:\t2") {
			t.Errorf("the noisy process is not running under its LOG filter: %v\n%s", err, status)
		}
	}()

	checkConcurrentRuns(t, concurrentRuns(t, agent))
}

const concurrentCount, concurrentCalls = 8, 25 // small bursts: the kernel backlog is shared with parallel test packages

func concurrentRuns(t *testing.T, agent string) []*verdict.Result {
	const runs, calls = concurrentCount, concurrentCalls
	results := make([]*verdict.Result, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := []string{agent, "marker", strconv.Itoa(1100 + i), strconv.Itoa(calls * (i + 1))}
			if i%2 == 1 { // half of them through a shell, a different tree shape
				cmd = []string{"sh", "-c", strings.Join(cmd, " ") + "; true"}
			}
			r, err := Run(ctx, Agent{Name: fmt.Sprintf("agent%d", i), Command: cmd})
			if err != nil {
				t.Errorf("run %d: %v", i, err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	return results
}

func checkConcurrentRuns(t *testing.T, results []*verdict.Result) {
	const runs, calls = concurrentCount, concurrentCalls
	if t.Failed() {
		return
	}
	for i, r := range results {
		if r.Verdict != verdict.VerdictClean {
			t.Errorf("run %d: %s", i, summary(r))
			continue
		}
		for nr := 1100; nr < 1100+runs; nr++ {
			want := uint64(0)
			if nr == 1100+i {
				want = uint64(calls * (i + 1))
			}
			if got := r.Observed.Count(scmp.Native(), strconv.Itoa(nr)); got != want {
				t.Errorf("run %d: %d calls of marker %d; want %d", i, got, nr, want)
			}
		}
		if r.Observed.Count(scmp.Native(), "1999") != 0 {
			t.Errorf("run %d got the unrelated process's events", i)
		}
	}
}

// A stdin reader that never ends must not hold the run up once the
// agent's tree is gone; data it does deliver reaches the agent.
func TestEndlessStdinDoesNotBlock(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	go stdinW.Write([]byte("hello\n"))
	var out strings.Builder
	done := make(chan *verdict.Result, 1)
	go func() { done <- mustRun(t, Agent{Command: []string{"head", "-n1"}, Stdin: stdinR, Stdout: &out}) }()
	select {
	case r := <-done:
		if r.ExitStatus != 0 || out.String() != "hello\n" {
			t.Fatalf("exit %d output %q", r.ExitStatus, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run blocked on a stdin reader that never ends")
	}
}

func TestUserAndDirAndOutput(t *testing.T) {
	dir, err := os.MkdirTemp("", "sysgate-agent-dir") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := mustRun(t, Agent{Command: []string{"sh", "-c", "id -u; id -g; pwd; cat /proc/self/loginuid; echo; echo err >&2"},
		Dir: dir, Stdout: &out, Stderr: &out}, WithUser(65534, 65534), WithoutFiles(), WithoutNetwork())
	// Without files and network observation the run keeps the user's
	// login uid (with them it is the run's own, which scopes its rules).
	want := fmt.Sprintf("65534\n65534\n%s\n65534\nerr\n", dir)
	if out.String() != want || r.ExitStatus != 0 {
		t.Fatalf("output %q (exit %d); want %q", out.String(), r.ExitStatus, want)
	}
}

// A run that observes files has a login uid of its own, which scopes its
// audit syscall rules (see touch.NewAUID), whatever user the agent is.
func TestFilesRunHasALoginUIDOfItsOwn(t *testing.T) {
	testutil.RequireAudit(t)
	var out strings.Builder
	r := mustRun(t, Agent{Command: []string{"cat", "/proc/self/loginuid"}, Stdout: &out}, WithUser(65534, 65534))
	auid, err := strconv.ParseUint(out.String(), 10, 32)
	if err != nil || r.ExitStatus != 0 {
		t.Fatalf("loginuid %q (exit %d): %v", out.String(), r.ExitStatus, err)
	}
	if auid < 0x7f000000 || auid > 0xfffffff0 || !r.FilesObserved {
		t.Fatalf("loginuid %d, files observed %v: want one of the run's own (0x7f000000 up) and files observed", auid, r.FilesObserved)
	}
}

func TestRunNeedsAuditControl(t *testing.T) {
	testutil.RequireRoot(t)
	// Lower CAP_AUDIT_CONTROL from this thread's effective set only (it
	// stays permitted, so it can be raised again), on a thread of its own.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := kernel.SetEffectiveCapability(kernel.CapAuditControl, false); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := kernel.SetEffectiveCapability(kernel.CapAuditControl, true); err != nil {
			t.Fatal(err)
		}
	}()
	_, err := Run(context.Background(), Agent{Command: []string{"/bin/true"}}, WithBackend(verdict.BackendAudit))
	if !errors.Is(err, ErrPrivileges) {
		t.Fatalf("err %v; want ErrPrivileges", err)
	}
	// auto falls back to notify, and says why.
	r := mustRun(t, Agent{Command: []string{"/bin/true"}})
	if r.Backend != verdict.BackendNotify || !strings.Contains(r.BackendNote, "CAP_AUDIT_CONTROL") || r.Verdict != verdict.VerdictClean {
		t.Fatalf("backend %q (%q): %s", r.Backend, r.BackendNote, summary(r))
	}
}

// make baseline-update's run: record mode with an observation file. The
// run merges its observation into the file and names it in the result
// (gatetest.StayWithinBaseline passes such a run).
func TestRecordingIntoObservationFile(t *testing.T) {
	path := trueBaseline(t)
	obs := filepath.Join(t.TempDir(), "obs.json")
	for range 2 {
		r := mustRun(t, Agent{Name: "sh", Command: []string{"sh", "-c", "exit 0"}}, WithBaselines(path),
			WithMode(baseline.ModeRecord), WithObservationFile(obs))
		if r.Mode != baseline.ModeRecord || !r.Saw("execve") || !r.Saw("rt_sigaction") || r.ObservationFile != obs {
			t.Fatalf("%s (observation file %q)", summary(r), r.ObservationFile)
		}
		// Had it not learned, the same result would fail against the
		// files, naming the shell as the first to make rt_sigaction.
		vs := r.ViolationsAgainst(mustLoad(t, path))
		v, ok := violation(&verdict.Result{Violations: vs}, scmp.Native(), "rt_sigaction")
		if !ok || v.Comm != "sh" || v.PID == 0 || v.Number == 0 {
			t.Fatalf("rt_sigaction attributed to %+v (%v)", v, vs)
		}
	}
	o, err := baseline.ReadObservation(obs)
	if err != nil || o.Runs != 2 || o.Agent != "sh" || o.Count(scmp.Native(), "execve") != 2 {
		t.Fatalf("observation %+v, %v", o, err)
	}
}

// Enforce mode denies what the baseline lacks and still reports it: with
// ERRNO the agent sees EPERM/ENOSYS-like failures and goes on, with KILL
// the kernel kills it at the first such call.
func TestEnforceReportsDenials(t *testing.T) {
	t.Parallel()
	agent := agentPath(t)
	// /bin/true's syscalls, and the test agent as a program besides
	// /bin/true: enforce refuses the exec of a program outside the list.
	path := trueBaseline(t)
	progs := filepath.Join(t.TempDir(), "programs.yaml")
	if err := os.WriteFile(progs, []byte("version: 1\nagent: true\nprograms:\n  - "+agent+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Agent{Command: []string{agent, "marker", "1000", "2"}}, WithBaselines(path, progs), WithMode(baseline.ModeEnforce))
	if v, ok := violation(r, scmp.Native(), "1000"); !ok || v.Count != 2 || r.ExitStatus != 0 {
		t.Errorf("errno: %s (exit %d)", summary(r), r.ExitStatus)
	}
	// A named syscall is killed by the filter (SIGSYS); a number
	// libseccomp cannot name goes to the run's listener, which kills the
	// caller (SIGKILL) before the call runs.
	getppid := strconv.Itoa(unix.SYS_GETPPID)
	for nr, signal := range map[string]string{getppid: "bad system call", "1000": "killed"} {
		r = mustRun(t, Agent{Command: []string{agent, "marker", nr, "2"}}, WithBaselines(path, progs),
			WithMode(baseline.ModeEnforce), WithEnforceAction(baseline.ActionKill))
		name := nr
		if nr == getppid {
			name = "getppid"
		}
		if v, ok := violation(r, scmp.Native(), name); !ok || v.Count != 1 || r.Signal != signal {
			t.Errorf("kill %s: %s (signal %q)", nr, summary(r), r.Signal)
		}
	}
}

func TestViolationNamesEveryProgramThatMadeIt(t *testing.T) {
	t.Parallel()
	path := trueBaseline(t)
	py := testutil.Python(t)
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Fatalf("perl (Debian's perl-base, on every machine of this kind): %v", err)
	}
	cmd := `"$0" -c "import socket; socket.socket()" && "$1" -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die' && "$1" -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die'`
	r := mustRun(t, Agent{Command: []string{"sh", "-c", cmd, py, perl}}, WithBaselines(path))
	if r.ExitStatus != 0 {
		t.Fatalf("agent failed: %s", summary(r))
	}
	v, ok := violation(r, scmp.Native(), "socket")
	if !ok {
		t.Fatalf("socket not reported: %s", summary(r))
	}
	if !strings.Contains(v.Exe, "python") {
		t.Errorf("first caller %s; want python", v.Exe)
	}
	if len(v.Also) != 1 || !strings.Contains(v.Also[0].Exe, "perl") || v.Also[0].Count < 2 || v.More != 0 {
		t.Errorf("also %+v more %d; want perl alone, with both its processes' calls", v.Also, v.More)
	}
	if s := v.String(); !strings.Contains(s, "; also "+v.Also[0].Exe) {
		t.Errorf("String() does not name perl: %s", s)
	}
}

func TestBaselinesWithoutTheNativeArchSayHowToRecordIt(t *testing.T) {
	t.Parallel()
	native := scmp.Native()
	foreign := scmp.AArch64
	if native == scmp.AArch64 {
		foreign = scmp.X86_64
	}
	path := filepath.Join(t.TempDir(), "foreign.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nsyscalls:\n  "+foreign.String()+":\n    - read\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Agent{Command: []string{"/bin/true"}}, WithBaselines(path))
	if r.Verdict != verdict.VerdictViolation || !r.MissingArch {
		t.Fatalf("verdict %s, missing arch %v: %s", r.Verdict, r.MissingArch, summary(r))
	}
	// What the reports say of it: ci's TestArchHintOfMissingArch.
	// With the native list present, no arch is missing.
	r = mustRun(t, Agent{Command: []string{"/bin/true"}}, WithBaselines(trueBaseline(t)))
	if r.MissingArch || len(r.Unrecorded) > 0 {
		t.Errorf("missing arch on a baseline with a %s list: %v, unrecorded %+v", native, r.MissingArch, r.Unrecorded)
	}
}
