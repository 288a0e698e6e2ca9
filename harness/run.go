package harness

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/harness/proc"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/notify/fileproxy"
	"github.com/sysgate/sysgate/notify/netproxy"
	"github.com/sysgate/sysgate/verdict"
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
func Run(ctx context.Context, agent Agent, opts ...Option) (*verdict.Result, error) {
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

// decide sets r's verdict (verdict.Decide) from its findings and what
// the run may have missed: r's own loss and unverified names, the
// barrier, the process tree and the execs it could not name.
func decide(r *verdict.Result, tree proc.Outcome, closeErr error, unseenExecs []string, allowAgentFailure bool) {
	c := r.Completeness()
	if closeErr != nil {
		c.Barrier = closeErr.Error()
	}
	if tree.Err != nil {
		c.Tracking = tree.Err.Error()
	}
	c.Cancelled, c.TimedOut = tree.Cancelled, tree.TimedOut
	c.Killed = len(tree.Leaked) + int(tree.LeaksNotKept)
	c.UnseenExecs = unseenExecs
	r.Verdict, r.Inconclusive = verdict.Decide(r.Findings(), c, verdict.Policy{AllowAgentFailure: allowAgentFailure})
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
