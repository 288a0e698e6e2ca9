package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/fileproxy"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/netproxy"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// barrierTimeout bounds the wait for the run's last records.
const barrierTimeout = 10 * time.Second

// Run runs agent under a filter compiled for the mode, waits for its whole
// process tree, and returns what the kernel logged. The error is non-nil
// only when there is no result at all: bad options or baselines, an
// environment without audit support, or an agent that could not be
// started (errors.Is(err, ErrAgentStart)); or, with WithObservationFile, an
// observation that could not be written, returned with its Result.
// Everything else, loss included, is in the Result and its Verdict.
//
// Run does what its options say and nothing else: it reads no environment,
// writes no file but WithObservationFile's and reports nowhere
// (gatetest.Run also reports the Result into the running Ginkgo spec).
// It runs one program besides the agent: for a command that is a version
// manager's shim, the manager's own "which", as the agent's user, to start
// the interpreter it names instead (ShimResolution; WithoutShimResolution
// keeps the shim).
// It changes one thing about the calling process, for good: the process
// becomes non-dumpable (PR_SET_DUMPABLE 0) on its first run, so no agent
// of the same uid can ptrace it or open its memory (see protectSelf).
func Run(ctx context.Context, agent Agent, opts ...Option) (*Result, error) {
	cfg := runConfig{grace: DefaultGrace}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := plan(agent, &cfg)
	if err != nil {
		return nil, err
	}
	l, err := p.launch(ctx)
	if err != nil {
		return nil, err
	}
	defer l.close()
	r, err := p.collect(ctx, l)
	l.close() // now, so the release phase times it (close runs once)
	p.clock.mark(PhaseRelease)
	return r, err
}

// normalize makes empty lists encode as [] rather than null.
func (r *Result) normalize() {
	if r.Baselines == nil {
		r.Baselines = []string{}
	}
	if r.Violations == nil {
		r.Violations = Violations{}
	}
	if r.Unused == nil {
		r.Unused = []baseline.Finding{}
	}
	if r.Leaked == nil {
		r.Leaked = []Leak{}
	}
	if r.Refused == nil {
		r.Refused = []baseline.Finding{}
	}
	if r.Unmonitored == nil {
		r.Unmonitored = []baseline.Unmonitored{}
	}
}

// decide sets the verdict, in the order violation > inconclusive > agent
// failed > clean. Whatever made the run inconclusive is kept in
// Inconclusive beside a violation: an agent that has made a new syscall
// cannot hide it by flooding the audit path afterwards.
func (r *Result) decide(tree treeOutcome, closeErr error, allowAgentFailure bool) {
	var reasons []error
	if r.Loss.Any() {
		reasons = append(reasons, errors.New(r.Loss.String()))
	}
	if closeErr != nil {
		reasons = append(reasons, fmt.Errorf("barrier: %w", closeErr))
	}
	if tree.Err != nil {
		reasons = append(reasons, fmt.Errorf("process tracking failed: %w", tree.Err))
	}
	leaked := len(tree.Leaked) + int(tree.leaksNotKept)
	if tree.Cancelled {
		reasons = append(reasons, fmt.Errorf("run cancelled; %d processes killed", leaked+1))
	}
	if tree.TimedOut {
		reasons = append(reasons, fmt.Errorf("agent timed out; the tree was killed (%d processes besides the agent)", leaked))
	}
	if len(r.unseenExecs) > 0 {
		unseen := len(r.unseenExecs)
		if r.NotKept != nil {
			unseen += int(r.NotKept.UnseenExecs)
		}
		reasons = append(reasons, fmt.Errorf("%d %s ran a program sysgate could not name (%s)", unseen,
			plural(unseen, "exec", "execs"), strings.Join(r.unseenExecs, "; ")))
	}
	if r.Mode == baseline.ModeRecord {
		for _, v := range r.ProgramViolations {
			// A record run learns programs; an exec that ran another
			// program than it named is not something to learn.
			reasons = append(reasons, fmt.Errorf("%s: %s", v.Path, v.Mismatch))
		}
	}
	reasons = append(reasons, r.fileReasons()...)
	reasons = append(reasons, r.networkReasons()...)
	if len(reasons) > 0 {
		r.Inconclusive = joinReasons(reasons)
	}
	switch {
	case len(r.Violations) > 0 || len(r.ProgramViolations) > 0 || r.UnknownABI > 0 || len(r.ModifiedBaselines) > 0 ||
		len(r.ChangedBaselines) > 0 || (r.NotKept != nil && r.NotKept.ProgramViolations > 0) ||
		len(r.FileViolations) > 0 || (r.NotKept != nil && r.NotKept.FileViolations > 0) ||
		len(r.NetworkViolations) > 0 || (r.NotKept != nil && r.NotKept.NetworkViolations > 0):
		// A call of an ABI sysgate cannot name is outside every baseline;
		// a baseline the agent wrote to says nothing about the next run,
		// nor does one changed since the gate began.
		r.Verdict = VerdictViolation
	case len(reasons) > 0:
		r.Verdict = VerdictInconclusive
	case r.AgentFailed() && !allowAgentFailure:
		r.Verdict = VerdictAgentFailed
	default:
		r.Verdict = VerdictClean
	}
}

// loadCompiled loads the baselines (or takes the given profile), picks the
// mode and compiles the filter; files are cached (see profileCache).
func (c *runConfig) loadCompiled() (*baseline.Profile, baseline.Mode, *compile.Filter, error) {
	// The notify backend's file observer reads each exec too, for the
	// files it opens (the audit backend has them from its PATH records),
	// also when programs are not observed.
	opts := compile.Options{Action: c.action, Notify: c.notify, ArgBlind: c.argBlind, Programs: !c.noPrograms || (c.notify && !c.noFiles), Scheduling: c.scheduling}
	if c.notify && !c.noFiles {
		opts.ProxiedCalls = fileproxy.Syscalls(scmp.Native())
	}
	if c.notify && !c.noNetwork {
		opts.ProxiedCalls = append(opts.ProxiedCalls, netproxy.Syscalls(scmp.Native())...)
	}
	if len(c.baselines) > 0 {
		return loadCompiled(c.baselines, c.selector, c.resolveMode, opts, c.diskFilterCache())
	}
	mode := c.resolveMode(c.profile)
	filter, err := compile.Compile(c.profile, mode, opts)
	return c.profile.WithScheduling(c.scheduling), mode, filter, err
}

// incrementalFor reports whether a run with profile p records
// incrementally: asked to, in record mode, with baselines to allow.
func (c *runConfig) incrementalFor(p *baseline.Profile) bool {
	return c.incremental && c.mode == baseline.ModeRecord && p != nil
}

// resolveMode is the mode the filter is compiled for: check's for an
// incremental record.
func (c *runConfig) resolveMode(p *baseline.Profile) baseline.Mode {
	switch {
	case c.incrementalFor(p):
		return baseline.ModeCheck
	case c.mode != 0:
		return c.mode
	case p == nil:
		return baseline.ModeRecord
	default:
		return baseline.ModeCheck
	}
}

func (c *runConfig) agentSetup(agent Agent, filter *compile.Filter) *kernel.AgentSetup {
	loginUID := uint32(os.Getuid())
	if c.setUser {
		loginUID = c.uid
	}
	setup := &kernel.AgentSetup{
		Path: agent.Command[0], Args: agent.Command, Env: agent.Env, Dir: agent.Dir,
		LoginUID: loginUID, SetUser: c.setUser, UID: c.uid, GID: c.gid,
		Program: filter.Program, Listener: filter.Listener,
		KeepFds: extraFds(agent.ExtraFiles), NewSession: true, Ctty: c.tty, PidNamespace: !c.noPidns,
	}
	// Enforce denials and, in every mode, the refused channels the filter
	// cannot see are ERRNO/KILL, not LOG: ask the kernel to log them too,
	// so the result names what was refused. ALLOW is never logged, and
	// LOG is logged anyway.
	setup.SeccompFlags = unix.SECCOMP_FILTER_FLAG_LOG
	setup.Root, setup.RootBinds = c.root, c.rootBinds
	return setup
}

// launchDir is the absolute directory the launcher chdirs to (dir, as
// the agent was given it), or sysgate's own when it is empty; "" when
// sysgate's own cannot be read.
func launchDir(dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	// getcwd(2), not os.Getwd: that trusts $PWD.
	wd, err := unix.Getwd()
	if err != nil {
		return ""
	}
	return filepath.Join(wd, dir)
}

// joinReasons is the reasons one a line, each with its control characters
// (the agent's names within it) escaped: so a new line in Inconclusive
// only ever separates sysgate's own reasons, which renderers show as
// parts rather than escape as the agent's text.
func joinReasons(reasons []error) string {
	parts := make([]string, len(reasons))
	for i, err := range reasons {
		parts[i] = untrusted.Terminal(err.Error())
	}
	return strings.Join(parts, "\n")
}
