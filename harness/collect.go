package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness/proc"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/runenv"
	"github.com/sysgate/sysgate/verdict"
)

// collect waits for the run's whole tree (killing what outlives the
// grace or the timeout), passes the barrier and turns what was seen into
// the Result.
func (p *runPlan) collect(ctx context.Context, s *started) (*verdict.Result, error) {
	child := s.child
	members := proc.NewMembers(child.ses, p.audited, child.initPid)
	root := proc.NewRoot(child.pidfd, child.pid, child.initPidfd, child.initPid, p.setup.PidNamespace && child.isolation == "")
	tree := proc.Supervise(ctx, root, members, s.obs.run, p.cfg.timeout, p.cfg.grace)
	status, initErr, waitErr := child.wait(ctx)
	if initErr != nil {
		tree.Err = errors.Join(tree.Err, initErr)
		if ctx.Err() != nil && !tree.TimedOut && !tree.Cancelled {
			_ = tree.Stopped(ctx)
		}
	}
	duration := time.Since(s.at)
	p.clock.mark(PhaseAgent)

	// The tree is gone: after the barrier every record it caused is in.
	// (The notify backend has had every call answered by now.)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), barrierTimeout)
	defer cancel()
	loss, closeErr := s.obs.finish(closeCtx)
	p.clock.mark(PhaseBarrier)

	r := p.newResult(s, tree, loss, duration)
	setExit(r, status, waitErr)
	if notes := s.obs.notes; notes != nil {
		r.Unnamed = notes.unnamed.Load()
		if err := notes.err(); err != nil {
			tree.Err = errors.Join(tree.Err, err)
		}
	}
	unseen := p.judge(r, s.obs, tree)
	r.Normalize()
	decide(r, tree, closeErr, unseen, p.cfg.allowAgentFailure)
	if p.mode == baseline.ModeRecord && r.Conclusive() && p.cfg.observation != "" {
		if err := MergeObservationFile(p.cfg.observation, r.Observed); err != nil {
			return r, err
		}
		r.ObservationFile = p.cfg.observation
	}
	p.clock.mark(PhaseResult)
	return r, nil
}

// newResult is the run's Result before its calls are judged: who ran,
// how, and what the run went without.
func (p *runPlan) newResult(s *started, tree proc.Outcome, loss auditlog.Loss, duration time.Duration) *verdict.Result {
	cfg := p.cfg
	r := &verdict.Result{
		Agent: p.agent.Name, Command: p.command, Shim: p.shim, Root: cfg.root, RootBinds: rootBindArgs(cfg.rootBinds), RootDir: rootDir(cfg.root, p.agent.Dir),
		Mode: p.mode, Incremental: p.incremental, Arch: scmp.Native(), Baselines: cfg.baselines,
		Session: s.child.ses, Loss: loss, Leaked: tree.Leaked, TimedOut: tree.TimedOut,
		Started: s.at, Duration: duration, ExitStatus: -1, KeptCapabilities: p.kept, DroppedEnv: p.droppedEnv,
		UID: uint32(os.Getuid()), GID: uint32(os.Getgid()),
	}
	if cfg.setUser {
		r.UID, r.GID = cfg.uid, cfg.gid
	}
	r.IsolationUnavailable = s.child.isolation
	if cfg.noPidns {
		r.IsolationUnavailable = "turned off by the caller (WithoutPIDNamespace)"
	}
	r.Backend, r.BackendNote, r.Weakened = p.backend, p.backendNote, p.weakened
	r.ModifiedBaselines = modifiedFiles(p.snapshots)
	r.ChangedBaselines = guardedChanges(cfg.guards, r.ModifiedBaselines)
	if !p.setup.NoFence {
		for _, g := range cfg.guards {
			r.ProtectedBaselines = append(r.ProtectedBaselines, g.Paths()...)
		}
	}
	slices.Sort(r.ProtectedBaselines)
	r.ProtectedBaselines = slices.Compact(r.ProtectedBaselines)
	if !p.setup.NoFence {
		r.ReadOnly = boundPaths(cfg.readOnly)
	}
	r.Warnings = s.warnings
	r.AcceptCommand = cfg.acceptCommand
	return r
}

// judge fills in what the run did and holds it against the baselines:
// the observation, the processes, the violations and unused entries, the
// programs, the refused channels, the environment. It returns the execs
// whose program could not be named (each makes the run inconclusive).
func (p *runPlan) judge(r *verdict.Result, o *observer, tree proc.Outcome) (unseenExecs []string) {
	events, profile, mode := o.events, p.profile, p.mode
	events.obs.Runs = 1
	events.obs.Incremental = p.incremental
	// What the programs' placeholders stood for: record writes them.
	events.obs.RuntimePrograms = p.runtimePrograms
	r.Observed = events.obs
	r.Events, r.UnknownABI = events.events, events.unknownABI
	r.Processes = events.processes()
	r.AddNotKept(events.notKeptCounts())
	r.AddNotKept(verdict.NotKept{Leaks: tree.LeaksNotKept})
	r.Attributions = events.firstCalls()
	if profile != nil {
		diff := baseline.Diff(profile, r.Observed)
		r.Violations = events.violations(diff.New).WithAllowed(profile)
		if mode == baseline.ModeRecord && !p.incremental {
			// Only a full record run sees allowed syscalls, so only it
			// can tell which entries went unused.
			r.Unused = diff.Unused
		}
	} else if mode != baseline.ModeRecord {
		r.Violations = events.violations(baseline.Diff(nil, r.Observed).New)
	}
	if o.notes != nil && o.notes.book != nil {
		unseenExecs = addPrograms(r, o.notes.book, profile, mode)
	}
	if o.net != nil {
		addNetwork(r, o.net, p)
	} else if p.network {
		r.NamesUnrecorded = p.resolverNote
	}
	if o.files != nil {
		addFiles(r, o.files, p)
	}
	r.Refused = events.refusedFindings()
	r.Unmonitored = profile.Unmonitored()
	r.MissingArch = profile != nil && mode != baseline.ModeRecord && !slices.Contains(profile.Arches(), r.Arch)
	paths := make([]string, len(r.Programs))
	for i, run := range r.Programs {
		paths[i] = run.Path
	}
	env := runenv.RunEnvironment(paths, p.envBefore, p.cfg.root)
	env.Variables = baseline.VariablesOf(p.agent.Env)
	noteEnvironment(r, env, profile, mode, p.fileCtxOrNew())
	r.Selector = p.cfg.selector
	return unseenExecs
}

// setExit records how the agent's first process ended.
func setExit(r *verdict.Result, ws syscall.WaitStatus, waitErr error) {
	switch {
	case waitErr != nil:
		r.Signal = fmt.Sprint(waitErr)
	case ws.Signaled():
		r.Signal = ws.Signal().String()
	default:
		r.ExitStatus = ws.ExitStatus()
	}
}
