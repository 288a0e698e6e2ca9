package harness

import (
	"context"
	"runtime"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/harness/proc"
	"github.com/sysgate/sysgate/internal/kernel"
)

// started is a run whose agent was released: what collect reads, and
// what close undoes, in reverse order (the claim, the listener, the
// pidfds, the audit tuning).
type started struct {
	child    *agentProcess
	obs      *observer
	at       time.Time // the go-ahead
	warnings []string
	undo     []func()
}

func (s *started) close() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
	s.undo = nil
}

// launch tunes audit (audit backend), starts the launcher, sets up what
// sees the run, claims its session and gives the go-ahead. On an error
// nothing is left running or held.
func (p *runPlan) launch(ctx context.Context) (_ *started, err error) {
	s := &started{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	var stream *auditlog.Stream
	if !p.notify {
		release, err := auditctl.AcquireTuning()
		if err != nil {
			return nil, err
		}
		s.undo = append(s.undo, func() { _ = release() })
		if stream, err = auditlog.Shared(); err != nil {
			return nil, err
		}
	}
	if p.audited {
		s.warnings = proc.ReapAbandonedRuns()
	}
	launched, err := kernel.BootTime()
	if err != nil {
		return nil, err
	}
	if err := p.installFileRules(s); err != nil {
		return nil, err
	}
	if err := p.startResolver(s); err != nil {
		return nil, err
	}
	if err := p.prepareLandlock(s); err != nil {
		return nil, err
	}
	p.clock.mark(PhaseAudit)
	child, err := startVfork(p.setup, p.agent.Stdin, p.agent.Stdout, p.agent.Stderr)
	p.clock.mark(PhaseSpawn)
	if err != nil {
		return nil, err
	}
	s.child = child
	s.undo = append(s.undo, child.closePidfd)
	// Until release, the child waits for us (and, with the vfork
	// launcher, holds syscall.ForkLock): never leave it waiting.
	released := false
	defer func() {
		if !released {
			child.abort()
		}
	}()
	// The environment says what {runtime} stands for: read before the
	// files observer judges its first access.
	p.awaitEnvironment()
	if s.obs, err = p.observe(child); err != nil {
		return nil, err
	}
	s.undo = append(s.undo, func() { _ = s.obs.run.Close() })
	// Claimed before the go-ahead: an agent that runs has a claim, so a
	// killed harness's tree is reaped by the next Run.
	if p.audited {
		unclaim, err := proc.ClaimSession(child.ses, launched, p.setup.DropCaps, p.setup.LoginUID)
		if err != nil {
			return nil, err
		}
		s.undo = append(s.undo, unclaim)
	}
	p.subscribe(s.obs, stream, child)
	p.clock.mark(PhaseListen)
	s.at, released = time.Now(), true
	err = child.release(ctx, s.obs.serve)
	runtime.KeepAlive(p.agent.ExtraFiles) // the child dup'd their fds, exec'd or failed
	if err != nil {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), barrierTimeout)
		defer cancel()
		_, _ = s.obs.closeSub(closeCtx)
		return nil, err
	}
	return s, nil
}
