package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// allowAll is a filter that logs nothing, so the benchmarks measure the
// launch path and not the audit subsystem.
var allowAll = []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}

// BenchmarkLaunchBare is the reference: fork+exec+wait of /bin/true.
func BenchmarkLaunchBare(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchVfork starts /bin/true the way a run does (new audit
// session, mount namespace with read-only knobs, capability drop, no_new_privs, filter, exec) and waits for it;
// the difference to BenchmarkLaunchBare is the start-up overhead per
// launch.
func BenchmarkLaunchVfork(b *testing.B) {
	testutil.RequireRoot(b)
	cfg := &kernel.AgentSetup{Path: "/bin/true", Args: []string{"/bin/true"}, Env: os.Environ(), Program: allowAll}
	cfg.DropCaps = benchDropCaps(b)
	for b.Loop() {
		p, err := startVfork(cfg, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.release(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		if _, _, err := p.wait(context.Background()); err != nil {
			b.Fatal(err)
		}
		p.closePidfd()
	}
}

// BenchmarkLaunchVforkListener is BenchmarkLaunchVfork with the run filter
// and its listener, served until it hangs up, as every run does: the
// difference is what the end-of-run signal costs per launch.
func BenchmarkLaunchVforkListener(b *testing.B) {
	benchLaunchListener(b, false)
}

// BenchmarkLaunchPidNamespace is BenchmarkLaunchVforkListener in the
// run's own PID namespace, as every run starts where the kernel allows:
// init (sharing this process's memory) in between, a /proc of its own, and the
// namespace torn down. The difference is what isolation costs per launch.
func BenchmarkLaunchPidNamespace(b *testing.B) {
	benchLaunchListener(b, true)
}

func benchLaunchListener(b *testing.B, pidns bool) {
	testutil.RequireRoot(b)
	cfg := listenerLaunch(b, pidns)
	for b.Loop() {
		launchWithListener(b, cfg)
	}
}

// listenerLaunch is how a run launches /bin/true: run filter, own session,
// and the PID namespace when asked.
func listenerLaunch(t testing.TB, pidns bool) *kernel.AgentSetup {
	cfg := &kernel.AgentSetup{Path: "/bin/true", Args: []string{"/bin/true"}, Env: os.Environ(), Program: allowAll,
		Listener: allowAll, NewSession: true, PidNamespace: pidns}
	cfg.DropCaps = benchDropCaps(t)
	return cfg
}

// launchWithListener launches cfg, serves its listener and waits until it
// hangs up.
func launchWithListener(t testing.TB, cfg *kernel.AgentSetup) {
	t.Helper()
	p, err := startVfork(cfg, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := serveListener(p.listener, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.release(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := kernel.WaitReady(run.OverFds(), 10_000); err != nil || !run.Over() {
		t.Fatalf("listener did not hang up: %v", err)
	}
	run.Close()
	p.closePidfd()
}

// BenchmarkRunCheckTrue is a whole check-mode Run of /bin/true against its
// own baseline: compile, tuning, subscribe, launch, tree wait, barrier.
func BenchmarkRunCheckTrue(b *testing.B) {
	testutil.RequireAudit(b)
	r, err := Run(context.Background(), Agent{Command: []string{"/bin/true"}})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "true.yaml")
	if _, err := baseline.WriteRecorded(path, r.Observed, baseline.RecordOptions{Agent: "true"}); err != nil {
		b.Fatal(err)
	}
	profile, err := baseline.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	var lost, runs float64
	for b.Loop() {
		runs++
		if lossyRun(b, profile) {
			lost++ // machine-wide; counted, not fatal
		}
	}
	b.ReportMetric(lost/runs, "lossy-runs/op")
}

func lossyRun(b *testing.B, profile *baseline.Profile) bool {
	r, err := Run(context.Background(), Agent{Command: []string{"/bin/true"}}, WithProfile(profile))
	if err != nil {
		b.Fatal(err)
	}
	if !r.Loss.Any() && r.Verdict != verdict.VerdictClean {
		b.Fatalf("%v", r)
	}
	return r.Loss.Any()
}

// benchDropCaps is the drop mask of a run, so a launch costs what a run's
// does.
func benchDropCaps(b testing.TB) uint64 {
	mask, err := fencedMask(nil)
	if err != nil {
		b.Fatal(err)
	}
	return mask
}

// Init shares sysgate's memory: what it maps for the agent's launch must
// go back, or every run leaves a stack behind in the process (a suite runs
// hundreds).
func TestPidNamespaceLaunchesLeaveNoMappings(t *testing.T) {
	testutil.RequireRoot(t)
	cfg := listenerLaunch(t, true)
	launch := func() { launchWithListener(t, cfg) }
	launch() // the first launch may map what the process keeps (probe, caches)
	// A leaked stack is 256 KiB: 10 MiB for a batch of 40 launches, in
	// every batch. Go reserves heap arenas of 64 MiB now and then, in
	// some batch: one batch that stays flat is the proof.
	const runs, batches = 40, 4
	var grew []int
	for range batches {
		before := mappedKiB(t)
		for range runs {
			launch()
		}
		grew = append(grew, mappedKiB(t)-before)
	}
	if slices.Min(grew) >= runs*256/2 {
		t.Errorf("every batch of %d launches left more mapped in this process (KiB per batch: %v)", runs, grew)
	}
}

// mappedKiB is the process's mapped address space (VmSize; adjacent
// anonymous mappings merge, so counting them would not do).
func mappedKiB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmSize in /proc/self/status")
	return 0
}
