package harness

import (
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// envProbe reads the command's environment (commandEnvironment: ~4 ms
// here, mostly reading node's and libc's versions out of their binaries)
// on a goroutine of its own, so that it runs beside the compile and the
// launcher's start instead of before them. Run waits for it before the
// go-ahead: the environment is still read before the agent runs, so the
// agent cannot change what the Result says about it.
type envProbe struct {
	done chan struct{}
	env  baseline.Environment
}

func startEnvironmentProbe(agent Agent) *envProbe {
	e := &envProbe{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.env = commandEnvironment(agent)
	}()
	return e
}

// awaitEnvironment waits for the probe (once) and picks the selector
// from what it read. The time waited is the environment phase.
func (p *runPlan) awaitEnvironment() {
	if p.envProbe == nil {
		return
	}
	<-p.envProbe.done
	p.envBefore, p.envProbe = p.envProbe.env, nil
	p.cfg.selector = baseline.SelectorFor(scmp.Native(), p.envBefore)
	p.clock.mark(PhaseEnvironment)
}

// layered reports whether the run's baselines pick a layer by the
// environment, and keeps the directories those layers lie under for the
// fence. Files that cannot be read or parsed count as not layered here:
// loading them reports the error, and a layered entry loaded without a
// selector is an error too, so nothing is loaded from a wrong layer.
func (p *runPlan) layered() bool {
	if len(p.cfg.baselines) == 0 {
		return false
	}
	p.layerDirs = baseline.SnapshotStack(p.cfg.baselines...).LayerDirs()
	return len(p.layerDirs) > 0
}
