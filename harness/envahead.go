package harness

import (
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/runenv"
)

// envProbe reads the command's environment (runenv.CommandEnvironment: ~4 ms
// here, mostly reading node's and libc's versions out of their binaries)
// on a goroutine of its own, so that it runs beside the compile and the
// launcher's start instead of before them. Run waits for it before the
// go-ahead: the environment is still read before the agent runs, so the
// agent cannot change what the Result says about it.
type envProbe struct {
	done chan struct{}
	env  baseline.Environment
}

func startEnvironmentProbe(agent Agent, root string) *envProbe {
	e := &envProbe{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.env = runenv.CommandEnvironment(agent.Command, agent.Env, agent.Dir, root)
	}()
	return e
}

// awaitEnvironment waits for the probe (once), picks the selector from
// what it read and binds the programs' placeholders ({python}) to the
// interpreters the command starts: from the caller's command, read
// before the run, never from what the agent runs. Everything that judges
// programs (the exec gate, Landlock, the result) takes the profile after
// this. The time waited is the environment phase.
func (p *runPlan) awaitEnvironment() {
	if p.envProbe == nil {
		return
	}
	<-p.envProbe.done
	p.envBefore, p.envProbe = p.envProbe.env, nil
	p.cfg.selector = runenv.Selector(p.envBefore)
	p.runtimePrograms = baseline.RuntimeProgramsOf(p.envBefore)
	p.profile = p.profile.BindRuntimes(p.runtimePrograms)
	p.clock.mark(PhaseEnvironment)
}

// layered reports whether the run's baselines pick a layer by the
// environment, and keeps the directories those layers lie under for the
// fence. Asked only when the stack did not load without a selector,
// which a layered entry needs: a stack that loads has no layer to fence.
func (p *runPlan) layered() bool {
	if len(p.cfg.baselines) == 0 {
		return false
	}
	p.layerDirs = baseline.SnapshotStack(p.cfg.baselines...).LayerDirs()
	return len(p.layerDirs) > 0
}

// probeNamespacesAhead starts, on a goroutine, the namespace probe the
// run will ask for later (each probe clones a child: ~0.3 ms for a PID
// namespace as root, ~1 ms for a user namespace without privilege), so
// that it runs beside the compile. The probes are sync.OnceValues: the
// later call waits for this one and gets its answer. Root's runs probe
// for a PID namespace at the launch; unprivileged runs for a user
// namespace in the fence.
func probeNamespacesAhead(noPidns bool) {
	if noPidns {
		return
	}
	if hasCap(capSysAdmin) {
		go kernel.ProbePidNamespace()
	} else {
		go kernel.ProbeUserNamespace()
	}
}
