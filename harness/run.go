package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
	"github.com/sysgate/sysgate/internal/scmp"
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
// It changes one thing about the calling process, for good: the process
// becomes non-dumpable (PR_SET_DUMPABLE 0) on its first run, so no agent
// of the same uid can ptrace it or open its memory (see protectSelf).
func Run(ctx context.Context, agent Agent, opts ...Option) (*Result, error) {
	cfg := runConfig{grace: DefaultGrace}
	for _, o := range opts {
		o(&cfg)
	}
	if len(agent.Command) == 0 {
		return nil, fmt.Errorf("%w: no command", ErrAgentStart)
	}
	if agent.Name == "" {
		agent.Name = filepath.Base(agent.Command[0])
	}
	backend, backendNote := cfg.pickBackend()
	notify := backend == BackendNotify
	cfg.notify = notify
	// The environment picks the baselines' layers: read before the run,
	// from the machine and the command, without running anything.
	envBefore := commandEnvironment(agent)
	cfg.selector = baseline.SelectorFor(scmp.Native(), envBefore)
	// Bad input is reported before missing privileges: it needs neither.
	profile, filterMode, filter, err := cfg.loadCompiled()
	if err != nil {
		return nil, err
	}
	// An incremental record compiles check mode's filter (the baselines
	// allowed in the kernel) and is a record run in everything else: it
	// learns programs rather than gating them, and writes its observation.
	mode, incremental := filterMode, cfg.incrementalFor(profile)
	if incremental {
		mode = baseline.ModeRecord
	}
	keep, kept, err := keptCapabilities(cfg.keepCaps)
	if err != nil {
		return nil, err
	}
	// The audit session lists the run's processes and marks its claim;
	// the audit backend cannot do without it, notify makes one where it
	// may.
	audited := InitialUserNamespace() && hasCap(capAuditControl)
	if !notify && !audited {
		return nil, fmt.Errorf("%w: the audit backend needs CAP_AUDIT_CONTROL in the initial user namespace to give the agent its own audit session (run as root, or use --backend notify; `sysgate doctor` checks the rest)", ErrPrivileges)
	}
	if notify {
		if err := listener.Supported(); err != nil {
			return nil, fmt.Errorf("%w: the notify backend: %w", ErrPrivileges, err)
		}
	}
	if err := protectSelf(); err != nil {
		return nil, err
	}
	env, droppedEnv, err := cfg.agentEnv(agent.Env)
	if err != nil {
		return nil, err
	}
	agent.Env = env
	setup := cfg.agentSetup(agent, filter)
	// A filter that notifies (the notify backend, or audit with argument
	// classes) is loaded with the run's listener, which then also tells
	// when the run is over: no run filter of its own.
	listened := filter.Notifies
	setup.Notify, setup.NoAuditSession, setup.Subreaper = listened, !audited, !audited
	if listened {
		setup.Listener = nil
	}
	var weakened []string
	if cfg.argBlind {
		weakened = append(weakened, "argument classes off (--no-arg-classes): a class entry such as socket(AF_UNIX) allows its syscall with any arguments")
	}
	switch {
	case cfg.noPrograms:
		weakened = append(weakened, "programs not observed (--no-programs): the executables the agent ran were neither listed nor gated")
	case mode != baseline.ModeRecord && !profile.GatesPrograms():
		weakened = append(weakened, "the baselines have no programs section: the executables the agent ran are listed, not gated (record with --merge to add one)")
	}
	if hasCap(capSetpcap) {
		if setup.DropCaps, err = fencedMask(keep); err != nil {
			return nil, err
		}
	} else if len(keep) > 0 {
		return nil, fmt.Errorf("%w: --keep-cap: sysgate itself holds no capabilities to keep", ErrKeepCapability)
	}
	// What the agent will be able to write to, read before it starts:
	// the run's own baselines (with everything they extend) and the
	// caller's snapshots.
	// A layer not recorded yet is watched too: an agent that writes one
	// would allow itself everything in the next run.
	watched := profile.Files()
	for _, u := range profile.Unrecorded() {
		watched = append(watched, u.Path)
	}
	snapshots := append([]*baseline.Snapshot{baseline.SnapshotFiles(watched...)}, cfg.snapshots...)
	readOnly := append([]string{cfg.observation}, cfg.readOnly...)
	for _, g := range cfg.guards {
		readOnly = append(readOnly, g.Paths()...)
	}
	// A layer created for another environment of the same entry is
	// picked by the next run there: the directories the layers lie
	// under are the run's too.
	if len(cfg.baselines) > 0 {
		readOnly = append(readOnly, baseline.SnapshotStack(cfg.baselines...).LayerDirs()...)
	}
	switch {
	case hasCap(capSysAdmin):
		setup.HideDirs, setup.ReadOnlyPaths = outOfReach(snapshots, readOnly...)
	case setup.PidNamespace && kernel.ProbeUserNamespace() == nil:
		// Without privilege, a user namespace of the run's own mapping the
		// caller's ids gives init the same fence, PID namespace and /proc.
		setup.UserNamespace, setup.MapUID, setup.MapGID = true, uint32(os.Geteuid()), uint32(os.Getegid())
		setup.HideDirs, setup.ReadOnlyPaths = outOfReach(snapshots, readOnly...)
	default:
		setup.NoFence = true
		weakened = append(weakened, "no mount fence (no CAP_SYS_ADMIN): /proc/sys and /sys are as writable as the user makes them, and the run's baselines are only checked afterwards")
	}
	if err := checkIsolation(setup, droppedEnv, cfg.unisolatedOK); err != nil {
		return nil, err
	}
	var stream *auditlog.Stream
	if !notify {
		release, err := auditctl.AcquireTuning()
		if err != nil {
			return nil, err
		}
		defer release()
		if stream, err = auditlog.Shared(); err != nil {
			return nil, err
		}
	}
	var warnings []string
	if audited {
		warnings = reapAbandonedRuns()
	}
	launched, err := kernel.BootTime()
	if err != nil {
		return nil, err
	}
	child, err := startVfork(setup, agent.Stdin, agent.Stdout, agent.Stderr)
	if err != nil {
		return nil, err
	}
	defer child.closePidfd()
	events := newCollector(agent.Name, cfg.progress)
	events.refusal = refusalOf(profile, mode, cfg.action)
	var run *runListener
	var notes *notifier
	if listened {
		// The filter's mode: an exec its baselines allow is answered
		// without an event, as the filter answers every allowed call.
		notes = newNotifier(events, profile, filterMode, cfg.action, child.ses, notify)
		notes.argBlind = cfg.argBlind
		if !cfg.noPrograms {
			notes.book, notes.gated = newProgramBook(), profile.GatesPrograms()
			notes.launchDir = launchDir(agent.Dir)
			if mode != baseline.ModeRecord && notes.gated {
				notes.book.outside = func(path string) bool { return !profile.AllowsProgram(path) }
			}
		}
	} else {
		if run, err = serveListener(child.listener, nil); err != nil {
			child.abort()
			return nil, err
		}
	}
	defer func() { run.Close() }()
	// Claimed before the go-ahead: an agent that runs has a claim, so a
	// killed harness's tree is reaped by the next Run.
	if audited {
		unclaim, err := claimSession(child.ses, launched, setup.DropCaps, setup.LoginUID)
		if err != nil {
			child.abort()
			return nil, err
		}
		defer unclaim()
	}

	// Until release, the child waits for us (and, with the vfork launcher,
	// holds syscall.ForkLock): never leave it waiting.
	releasing := false
	defer func() {
		if !releasing {
			child.abort()
		}
	}()
	var sub *auditlog.Subscription
	if stream != nil {
		add := events.add
		if listened {
			// Under SECCOMP_FILTER_FLAG_LOG the kernel logs the calls it
			// hands the listener too: the listener reports them, with
			// their class. (The agent cannot have a listener of its own:
			// the run's makes the kernel refuse a second one.)
			// A logged call of a classed syscall has the class the filter
			// logs (Filter.Implied).
			add = func(ev *record.SeccompEvent) {
				if ev.Code&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_USER_NOTIF {
					return
				}
				if key := filter.LoggedKey(ev.Arch, ev.Name); key != ev.Name {
					named := *ev
					named.Name = key
					ev = &named
				}
				events.add(ev)
			}
		}
		sub = stream.Subscribe(child.ses, add)
	}
	closeSub := func(ctx context.Context) (auditlog.Loss, error) {
		if sub == nil {
			return auditlog.Loss{}, nil
		}
		return sub.Close(ctx)
	}
	started := time.Now()
	releasing = true
	err = child.release(ctx, func(fd int) error {
		notes.fd = fd
		var err error
		run, err = serveListener(fd, notes.decide)
		return err
	})
	runtime.KeepAlive(agent.ExtraFiles) // the child dup'd their fds, exec'd or failed
	if err != nil {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), barrierTimeout)
		defer cancel()
		_, _ = closeSub(closeCtx)
		return nil, err
	}
	members := runMembers{ses: child.ses, audited: audited, init: child.initPid}
	root := runRoot{child.pidfd, child.pid, child.initPidfd, child.initPid, setup.PidNamespace && child.isolation == ""}
	tree := superviseTree(ctx, root, members, run, cfg.timeout, cfg.grace)
	status, initErr, waitErr := child.wait(ctx)
	if initErr != nil {
		tree.Err = errors.Join(tree.Err, initErr)
		if ctx.Err() != nil && !tree.TimedOut && !tree.Cancelled {
			_ = tree.stopped(ctx)
		}
	}
	duration := time.Since(started)

	// The tree is gone: after the barrier every record it caused is in.
	// (The notify backend has had every call answered by now.)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), barrierTimeout)
	defer cancel()
	loss, closeErr := closeSub(closeCtx)
	if listened {
		// The listener's barrier: its goroutine, which fed the
		// collector, has stopped once Close returns.
		_ = run.Close()
		if notes.book != nil {
			notes.book.close()
		}
	}

	r := &Result{
		Agent: agent.Name, Command: agent.Command, Mode: mode, Incremental: incremental, Arch: scmp.Native(), Baselines: cfg.baselines,
		Session: child.ses, Loss: loss, Leaked: tree.Leaked, TimedOut: tree.TimedOut,
		Started: started, Duration: duration, ExitStatus: -1, KeptCapabilities: kept, DroppedEnv: droppedEnv,
		UID: uint32(os.Getuid()), GID: uint32(os.Getgid()),
	}
	if cfg.setUser {
		r.UID, r.GID = cfg.uid, cfg.gid
	}
	r.setExit(status, waitErr)
	r.IsolationUnavailable = child.isolation
	r.Backend, r.BackendNote, r.Weakened = backend, backendNote, weakened
	if notes != nil {
		r.Unnamed = notes.unnamed.Load()
		if err := notes.err(); err != nil {
			tree.Err = errors.Join(tree.Err, err)
		}
	}
	if cfg.noPidns {
		r.IsolationUnavailable = "turned off by the caller (WithoutPIDNamespace)"
	}
	r.ModifiedBaselines = modifiedFiles(snapshots)
	r.ChangedBaselines = guardedChanges(cfg.guards, r.ModifiedBaselines)
	if !setup.NoFence {
		for _, g := range cfg.guards {
			r.ProtectedBaselines = append(r.ProtectedBaselines, g.Paths()...)
		}
	}
	slices.Sort(r.ProtectedBaselines)
	r.ProtectedBaselines = slices.Compact(r.ProtectedBaselines)
	if !setup.NoFence {
		r.ReadOnly = boundPaths(cfg.readOnly)
	}
	r.Warnings = warnings
	events.obs.Runs = 1
	events.obs.Incremental = incremental
	r.Observed = events.obs
	r.Events, r.UnknownABI = events.events, events.unknownABI
	r.Processes = events.processes()
	r.addNotKept(events.notKeptCounts())
	r.addNotKept(NotKept{Leaks: tree.leaksNotKept})
	r.firstCalls = events.firstCalls()
	if profile != nil {
		diff := baseline.Diff(profile, r.Observed)
		r.Violations = events.violations(diff.New).withAllowed(profile)
		if mode == baseline.ModeRecord && !incremental {
			// Only a full record run sees allowed syscalls, so only it
			// can tell which entries went unused.
			r.Unused = diff.Unused
		}
	} else if mode != baseline.ModeRecord {
		r.Violations = events.violations(baseline.Diff(nil, r.Observed).New)
	}
	if notes != nil && notes.book != nil {
		r.addPrograms(notes.book, profile, mode)
	}
	r.Refused = events.refusedFindings()
	r.Unmonitored = profile.Unmonitored()
	r.MissingArch = profile != nil && mode != baseline.ModeRecord && !slices.Contains(profile.Arches(), r.Arch)
	r.noteEnvironment(runEnvironment(r.Programs, envBefore), profile, mode)
	r.Selector = cfg.selector
	r.normalize()
	r.decide(tree, closeErr, cfg.allowAgentFailure)
	if mode == baseline.ModeRecord && r.Conclusive() && cfg.observation != "" {
		if err := MergeObservationFile(cfg.observation, r.Observed); err != nil {
			return r, err
		}
		r.ObservationFile = cfg.observation
	}
	return r, nil
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
	if len(reasons) > 0 {
		r.Inconclusive = errors.Join(reasons...).Error()
	}
	switch {
	case len(r.Violations) > 0 || len(r.ProgramViolations) > 0 || r.UnknownABI > 0 || len(r.ModifiedBaselines) > 0 ||
		len(r.ChangedBaselines) > 0 || (r.NotKept != nil && r.NotKept.ProgramViolations > 0):
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

func (r *Result) setExit(ws syscall.WaitStatus, waitErr error) {
	switch {
	case waitErr != nil:
		r.Signal = fmt.Sprint(waitErr)
	case ws.Signaled():
		r.Signal = ws.Signal().String()
	default:
		r.ExitStatus = ws.ExitStatus()
	}
}

// loadCompiled loads the baselines (or takes the given profile), picks the
// mode and compiles the filter; files are cached (see profileCache).
func (c *runConfig) loadCompiled() (*baseline.Profile, baseline.Mode, *baseline.Filter, error) {
	opts := baseline.CompileOptions{Action: c.action, Notify: c.notify, ArgBlind: c.argBlind, Programs: !c.noPrograms}
	if len(c.baselines) > 0 {
		return loadCompiled(c.baselines, c.selector, c.resolveMode, opts)
	}
	mode := c.resolveMode(c.profile)
	filter, err := baseline.Compile(c.profile, mode, opts)
	return c.profile, mode, filter, err
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

func (c *runConfig) agentSetup(agent Agent, filter *baseline.Filter) *kernel.AgentSetup {
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
