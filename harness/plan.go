package harness

import (
	"context"
	"fmt"
	"os"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
	"github.com/sysgate/sysgate/verdict"
)

// runPlan is everything a run decides before anything starts: the
// backend, the compiled baselines, the agent's set-up with its fences,
// and what the run goes without (weakened).
type runPlan struct {
	cfg   *runConfig
	agent Agent
	clock *phaseClock
	// command is the agent's command as the caller gave it; agent's may
	// name the interpreter its shim stands for (shim).
	command []string
	shim    *verdict.ShimResolution

	backend     verdict.Backend
	backendNote string
	// notify: the notify backend. audited: the run gets an audit session
	// of its own (root in the initial user namespace). listened: the
	// filter notifies (notify, or audit with classes or programs), and
	// its listener also tells when the run is over.
	notify, audited, listened bool

	envBefore baseline.Environment // the machine and command, read before the run
	envProbe  *envProbe            // reading envBefore until awaited
	// runtimePrograms: what the programs' placeholders stand for, from
	// envBefore (bound into profile by awaitEnvironment).
	runtimePrograms baseline.RuntimePrograms
	layerDirs       []string // where the baselines' layers lie (fenced)
	profile         *baseline.Profile
	filterMode      baseline.Mode // what the filter was compiled for
	mode            baseline.Mode // what the run is: record for an incremental record
	incremental     bool
	filter          *compile.Filter

	// files: the run observes file accesses; auid is the run's login uid
	// that scopes its audit syscall rules (audit backend, see touch).
	files   bool
	auid    uint32
	fileCtx baseline.FileContext
	// network: the run observes socket calls (same rules and auid on
	// audit); resolver is its recording DNS forwarder (nil without one:
	// resolverNote says why).
	network      bool
	resolver     *runResolver
	resolverNote string

	kept       []string // --keep-cap, as named
	droppedEnv []string
	setup      *kernel.AgentSetup
	weakened   []string
	snapshots  []*baseline.Snapshot // what the agent could write, read before it starts
}

// plan checks the options and the machine and builds the run's plan.
// Bad input is reported before missing privileges: it needs neither.
func plan(agent Agent, cfg *runConfig) (*runPlan, error) {
	if len(agent.Command) == 0 {
		return nil, fmt.Errorf("%w: no command", ErrAgentStart)
	}
	agent.Name = AgentName(agent)
	p := &runPlan{cfg: cfg, agent: agent, clock: newPhaseClock(cfg.phases)}
	var err error
	p.backend, p.backendNote = cfg.pickBackend()
	p.notify = p.backend == verdict.BackendNotify
	cfg.notify = p.notify
	// The environment picks the baselines' layers: read before the run,
	// from the machine and the command, without running anything. It is
	// read meanwhile (envahead.go) and awaited before the go-ahead; only
	// a layered stack, which does not load without it, waits here.
	p.envProbe = startEnvironmentProbe(agent, cfg.root)
	probeNamespacesAhead(cfg.noPidns)
	p.profile, p.filterMode, p.filter, err = cfg.loadCompiled()
	if err != nil && p.layered() {
		p.awaitEnvironment()
		p.profile, p.filterMode, p.filter, err = cfg.loadCompiled()
		p.profile = p.profile.BindRuntimes(p.runtimePrograms)
	}
	p.clock.mark(PhaseCompile)
	if err != nil {
		return nil, err
	}
	// An incremental record compiles check mode's filter (the baselines
	// allowed in the kernel) and is a record run in everything else: it
	// learns programs rather than gating them, and writes its observation.
	p.mode, p.incremental = p.filterMode, cfg.incrementalFor(p.profile)
	if p.incremental {
		p.mode = baseline.ModeRecord
	}
	keep, kept, err := keptCapabilities(cfg.keepCaps)
	if err != nil {
		return nil, err
	}
	p.kept = kept
	if err := p.checkPrivileges(); err != nil {
		return nil, err
	}
	env, dropped, err := cfg.agentEnv(agent.Env)
	if err != nil {
		return nil, err
	}
	p.agent.Env, p.droppedEnv = env, dropped
	p.command = p.agent.Command
	if !cfg.keepShims {
		p.agent, p.shim = cfg.resolveShim(context.Background(), p.agent)
	}
	if err := p.prepareSetup(keep); err != nil {
		return nil, err
	}
	if err := checkIsolation(p.setup, p.droppedEnv, cfg.unisolatedOK); err != nil {
		return nil, err
	}
	p.clock.mark(PhasePrepare)
	return p, nil
}

// checkPrivileges checks that the backend can run here, and makes this
// process non-dumpable for good.
func (p *runPlan) checkPrivileges() error {
	// The audit session lists the run's processes and marks its claim;
	// the audit backend cannot do without it, notify makes one where it
	// may.
	p.audited = InitialUserNamespace() && hasCap(capAuditControl)
	if !p.notify && !p.audited {
		return fmt.Errorf("%w: the audit backend needs CAP_AUDIT_CONTROL in the initial user namespace to give the agent its own audit session (run as root, or use --backend notify; `sysgate doctor` checks the rest)", ErrPrivileges)
	}
	if p.notify {
		if err := listener.Supported(); err != nil {
			return fmt.Errorf("%w: the notify backend: %w", ErrPrivileges, err)
		}
	}
	return protectSelf()
}

// prepareSetup builds the agent's set-up: the filter and how its
// listener is used, the capabilities it loses, the fence, and what the
// run goes without.
func (p *runPlan) prepareSetup(keep []int) error {
	cfg := p.cfg
	p.setup = cfg.agentSetup(p.agent, p.filter)
	// A filter that notifies (the notify backend, or audit with argument
	// classes) is loaded with the run's listener, which then also tells
	// when the run is over: no run filter of its own.
	p.listened = p.filter.Notifies
	p.setup.Notify, p.setup.NoAuditSession, p.setup.Subreaper = p.listened, !p.audited, !p.audited
	if p.listened {
		p.setup.Listener = nil
	}
	if cfg.argBlind {
		p.weakened = append(p.weakened, "argument classes off (--no-arg-classes): a class entry such as socket(AF_UNIX) allows its syscall with any arguments")
	}
	switch {
	case cfg.noPrograms:
		p.weakened = append(p.weakened, "programs not observed (--no-programs): the executables the agent ran were neither listed nor gated")
	case p.mode != baseline.ModeRecord && !p.profile.GatesPrograms():
		p.weakened = append(p.weakened, "the baselines have no programs section: the executables the agent ran are listed, not gated (record with --merge to add one)")
	}
	p.planFiles()
	p.planNetwork()
	if hasCap(capSetpcap) {
		var err error
		if p.setup.DropCaps, err = fencedMask(keep); err != nil {
			return err
		}
	} else if len(keep) > 0 {
		return fmt.Errorf("%w: --keep-cap: sysgate itself holds no capabilities to keep", ErrKeepCapability)
	}
	p.fence()
	return nil
}

// fence decides what the agent may not write or see in its mount
// namespace, and reads what it could write before it starts: the run's
// own baselines (with everything they extend) and the caller's
// snapshots. A layer not recorded yet is watched too: an agent that
// writes one would allow itself everything in the next run.
func (p *runPlan) fence() {
	cfg := p.cfg
	watched := p.profile.Files()
	for _, u := range p.profile.Unrecorded() {
		watched = append(watched, u.Path)
	}
	p.snapshots = append([]*baseline.Snapshot{baseline.SnapshotFiles(watched...)}, cfg.snapshots...)
	readOnly := append([]string{cfg.observation}, cfg.readOnly...)
	for _, g := range cfg.guards {
		readOnly = append(readOnly, g.Paths()...)
	}
	// A layer created for another environment of the same entry is
	// picked by the next run there: the directories the layers lie
	// under are the run's too.
	readOnly = append(readOnly, p.layerDirs...)
	switch {
	case hasCap(capSysAdmin):
		p.setup.HideDirs, p.setup.ReadOnlyPaths = outOfReach(p.snapshots, readOnly...)
	case p.setup.PidNamespace && kernel.ProbeUserNamespace() == nil:
		// Without privilege, a user namespace of the run's own mapping the
		// caller's ids gives init the same fence, PID namespace and /proc.
		p.setup.UserNamespace, p.setup.MapUID, p.setup.MapGID = true, uint32(os.Geteuid()), uint32(os.Getegid())
		p.setup.HideDirs, p.setup.ReadOnlyPaths = outOfReach(p.snapshots, readOnly...)
	default:
		p.setup.NoFence = true
		p.weakened = append(p.weakened, "no mount fence (no CAP_SYS_ADMIN): /proc/sys and /sys are as writable as the user makes them, and the run's baselines are only checked afterwards")
	}
}

// agentUID is the uid the agent runs as.
func (p *runPlan) agentUID() uint32 {
	if p.cfg.setUser {
		return p.cfg.uid
	}
	return uint32(os.Getuid())
}
