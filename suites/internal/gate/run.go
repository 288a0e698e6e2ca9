package gate

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/verdict"
)

// RunTimeout bounds one agent run; the slowest (an MCP server) takes about
// a second. The whole spec, its attempts included, is bounded by its
// SpecTimeout (deadline.Ordinary, the suites' default), whose context Run
// and RunMCP hand to harness.Run: when it expires the run's tree is killed
// and the result is inconclusive, timed out.
const RunTimeout = 60 * time.Second

// Spec names what runs and which committed baseline gates it.
type Spec struct {
	// Baseline is the agent's file under suites/baselines without
	// ".yaml", e.g. "python/read-only". Its extends pull in the runtime
	// base.
	Baseline string
	// Agent is the name in reports; default Baseline with "/" as "-"
	// ("python-read-only"), the agent name in the baseline file. A bite
	// spec names its changed task here.
	Agent   string
	Command []string
	Dir     string
	Env     []string // nil: fixture.AgentEnv(Dir)
	// Options go after the spec's own (a later option wins): e.g. the
	// backends' cross-check's WithBackend and WithMode.
	Options []harness.Option
}

// BaselinePath is the spec's committed baseline file.
func (s Spec) BaselinePath() string { return fixture.Baseline(s.Baseline + ".yaml") }

func (s Spec) agent() harness.Agent {
	env := s.Env
	if env == nil {
		env = fixture.AgentEnv(s.Dir)
	}
	name := s.Agent
	if name == "" {
		name = strings.ReplaceAll(s.Baseline, "/", "-")
	}
	return harness.Agent{Name: name, Command: s.Command, Dir: s.Dir, Env: env}
}

// What `make baseline-update` (scripts/security-test.sh --record) and
// the action set is turned into options by one translator,
// gatetest.EnvOptions, which gatetest.Run applies: $SYSGATE_MODE (record:
// learn instead of check), $SYSGATE_OBSERVATIONS, $SYSGATE_INCREMENTAL,
// $SYSGATE_BACKEND, $SYSGATE_USER, $SYSGATE_BASELINES. The gate reads only
// what is the suites' own: the two switches below.
const (
	// noArgClassesEnv "1" switches argument classes off, for the test
	// that the class bite specs fail without them.
	noArgClassesEnv = "SYSGATE_NO_ARG_CLASSES"
	// noProgramsEnv "1" switches program observation off, for the test
	// that the program bite specs fail without it.
	noProgramsEnv = "SYSGATE_NO_PROGRAMS"
)

// recording reports whether $SYSGATE_MODE asks for record mode: the same
// specs then learn observations instead of failing.
func recording() bool {
	return os.Getenv(gatetest.EnvMode) == "record"
}

// options checks against the spec's baseline. In record mode Run merges
// the observation into $SYSGATE_OBSERVATIONS/<agent>.json, which
// `make baseline-update` writes back into the file whose agent key matches.
func (s Spec) options() []harness.Option {
	GinkgoHelper()
	// The CLI's default: the fixed AgentEnv holds none of DroppedEnv, and
	// the filter keeps it so when a spec adds to it.
	opts := []harness.Option{harness.WithTimeout(RunTimeout), harness.WithEnvFilter()}
	guard, err := suiteGuard()
	Expect(err).NotTo(HaveOccurred(), "the suites' baselines")
	opts = append(opts, harness.WithBaselineGuard(guard))
	// This repository's suites are accepted by its make target.
	opts = append(opts, harness.WithAcceptCommand("sudo make baseline-update"))
	if _, err := os.Stat(s.BaselinePath()); err == nil {
		opts = append(opts, harness.WithBaselines(s.BaselinePath()))
	} else {
		// Only record mode may run without the file: it is about to write it.
		Expect(recording()).To(BeTrue(), "no baseline %s: run `make baseline-update` to record it", s.BaselinePath())
	}
	// Record mode, its observation file and incremental record come from
	// gatetest.EnvOptions (gatetest.Run): checked here, so a bad setting
	// fails the spec with its reason before the run.
	_, err = gatetest.EnvOptions(s.agent().Name, os.Getenv)
	Expect(err).NotTo(HaveOccurred(), "the gate's environment")
	if uid, gid, ok := agentUser(); ok {
		opts = append(opts, harness.WithUser(uid, gid))
	}
	if os.Getenv(noArgClassesEnv) == "1" {
		opts = append(opts, harness.WithoutArgClasses())
	}
	if os.Getenv(noProgramsEnv) == "1" {
		opts = append(opts, harness.WithoutPrograms())
	}
	return append(opts, s.Options...)
}

// suiteGuard is the suite's gate over every committed baseline
// (fixture.BaselinesDir): made before the process's first run, so no spec's
// agent can widen the baseline a later spec checks against (issue 32).
var suiteGuard = sync.OnceValues(func() (*harness.BaselineGuard, error) {
	return harness.NewBaselineGuard(fixture.BaselinesDir())
})

// agentUser is the user the suites' agents run as: under sudo the user who
// ran it (`sudo make security-test`), as the CLI does; otherwise the
// caller. An unreadable SUDO_UID fails the spec rather than running the
// agent as root by mistake.
func agentUser() (uid, gid uint32, ok bool) {
	GinkgoHelper()
	uid, gid, ok, err := harness.SudoCaller(os.Getenv)
	Expect(err).NotTo(HaveOccurred(), "the suites run agents as the user who ran sudo")
	return uid, gid, ok
}

// Run runs the spec's command to completion under the gate and returns a
// conclusive result with the agent's output checked for success. Every
// attempt's Result goes into the spec's report (gatetest.ReportResult).
func Run(ctx context.Context, s Spec) *verdict.Result {
	GinkgoHelper()
	return s.attempt(func() (*verdict.Result, string) {
		var stdout, stderr syncBuffer
		agent := s.agent()
		agent.Stdout, agent.Stderr = &stdout, &stderr
		result, err := gatetest.Run(ctx, agent, s.options()...)
		Expect(err).NotTo(HaveOccurred())
		return result, stdout.String() + stderr.String()
	})
}

// attempt runs once and checks completion. A run is never repeated: an
// inconclusive run fails the spec as it fails a user's CI (issue 42).
func (s Spec) attempt(run func() (*verdict.Result, string)) *verdict.Result {
	GinkgoHelper()
	r, output := run()
	s.expectCompleted(r, output)
	return r
}

// expectCompleted checks what every spec needs before it can judge the
// syscalls: a conclusive run of an agent that did its task and left no
// process behind. output goes into the report for failures.
func (s Spec) expectCompleted(r *verdict.Result, output string) {
	GinkgoHelper()
	AddReportEntry(s.Baseline+" output", output, ReportEntryVisibilityFailureOrVerbose)
	Expect(r.Conclusive()).To(BeTrue(), "run of %s was inconclusive: %s", s.Baseline, r.Inconclusive)
	Expect(r.ExitStatus).To(Equal(0), "agent %s failed:\n%s", s.Baseline, output)
	Expect(r.Leaked).To(BeEmpty(), "processes outlived %s", s.Baseline)
}

// RunMCP starts the spec's command as a stdio MCP server under the gate
// and lets drive talk to it through an initialized client (mcptest.Run:
// the environment's options, then the spec's), then closes it (the server
// exits on the end of its stdin) and returns the result, checked as Run's.
func RunMCP(ctx context.Context, s Spec, drive func(context.Context, *mcptest.Client)) *verdict.Result {
	GinkgoHelper()
	return s.attempt(func() (*verdict.Result, string) {
		var stderr syncBuffer
		agent := s.agent()
		agent.Stderr = &stderr
		result, err := mcptest.Run(ctx, agent, func(ctx context.Context, c *mcptest.Client) error {
			drive(ctx, c)
			return nil
		}, s.options()...)
		Expect(err).NotTo(HaveOccurred(), "the MCP session with %s", s.Baseline)
		return result, stderr.String()
	})
}

// syncBuffer is an agent's output, written by the run's copies while a
// spec may read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ViolationNames lists the syscalls of a result's violations, for bite
// specs that must name what was new.
func ViolationNames(r *verdict.Result) []string {
	var names []string
	for _, v := range r.Violations {
		names = append(names, v.Syscall)
	}
	return names
}

// ViolationSyscalls lists the syscall names of a result's violations,
// without their argument classes ("socket" for "socket(AF_INET)"): for
// bite specs about a new syscall, which hold with classes on or off.
func ViolationSyscalls(r *verdict.Result) []string {
	var names []string
	for _, v := range r.Violations {
		names = append(names, argclass.SyscallOf(v.Syscall))
	}
	return names
}

// SkipWhenRecording skips a bite spec in record mode: a violation must never
// be learned into a baseline. security-test.sh --record filters them out by
// label already; this covers a plain SYSGATE_MODE=record go test.
func SkipWhenRecording() {
	if recording() {
		Skip("bite specs prove the gate in check mode; record mode only learns baselines")
	}
}

// RequireBackend skips (or under CI fails) a suite that cannot run its
// gate here: the audit backend (root, audit and seccomp LOG) where
// $SYSGATE_BACKEND or auto picks it, else the notify backend (a kernel
// whose seccomp listener hangs up, Linux 5.8+), which needs no privilege.
func RequireBackend(t testutil.TB) {
	t.Helper()
	b, err := verdict.ParseBackend(os.Getenv(gatetest.EnvBackend))
	if err != nil {
		t.Fatalf("$%s: %v", gatetest.EnvBackend, err)
	}
	if b, _ = harness.ResolveBackend(b); b == verdict.BackendAudit {
		testutil.RequireAudit(t)
		return
	}
	if why := harness.NotifyUnavailable(); why != "" {
		testutil.Unavailable(t, "notify", "the notify backend: "+why)
	}
}
