package harness

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/auditlog/touch"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
)

// observer is how a run sees its calls: the collector they go to, the
// audit subscription (audit backend), and the run's listener. notes
// exists exactly when the filter notifies (plan.listened): then the
// listener answers the held calls (and names every exec), else it only
// tells when the run is over.
type observer struct {
	events *collector
	notes  *notifier
	run    *runListener
	sub    *auditlog.Subscription
	// files collects the run's file accesses (nil when files are not
	// observed); touch reads them from the audit stream.
	files   *fileBook
	touch   *touch.Observation
	emitter *fileEmitter
	// net collects the run's socket calls (nil when the network is not
	// observed): from the same audit rules, or the notify proxy.
	net        *netBook
	netEmitter *netEmitter
}

// observe sets up what sees the run's calls before the agent starts (the
// audit subscription comes last: see subscribe).
func (p *runPlan) observe(child *agentProcess) (*observer, error) {
	o := &observer{events: newCollector(p.agent.Name, p.cfg.progress)}
	o.events.refusal = refusalOf(p.profile, p.mode, p.cfg.action)
	if p.listened {
		o.notes = p.notifier(o.events)
		if p.notify && p.files {
			nf, err := p.newNotifyFiles()
			if err != nil {
				return nil, err
			}
			o.notes.files, o.files = nf, nf.book
		}
		if p.notify && p.network {
			nn, err := p.newNotifyNet()
			if err != nil {
				return nil, err
			}
			o.notes.net, o.net = nn, nn.book
		}
	} else {
		var err error
		if o.run, err = serveListener(child.listener, nil); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// subscribe has the run's audit records delivered (audit backend), right
// before the go-ahead: nothing is left to fail that would need it closed.
func (p *runPlan) subscribe(o *observer, stream *auditlog.Stream, child *agentProcess) {
	if stream == nil {
		return
	}
	o.sub = stream.Subscribe(child.ses, p.auditEvents(o.events))
	if p.touchSet() == 0 {
		return
	}
	if p.files {
		o.files = p.newFileBook()
		o.emitter = newFileEmitter(o.files)
		o.emitter.hidden = p.setup.HideDirs
		o.emitter.binds = bindIdentities(p.setup.BindFiles)
	}
	if p.network {
		o.net = p.newNetBook()
		o.netEmitter = newNetEmitter(o.net)
	}
	o.touch = touch.Observe(stream, p.auid, o.emitTouch)
}

// notifier answers the held calls of a run whose filter notifies.
func (p *runPlan) notifier(events *collector) *notifier {
	cfg, profile := p.cfg, p.profile
	// The filter's mode: an exec its baselines allow is answered without
	// an event, as the filter answers every allowed call.
	notes := newNotifier(events, profile, p.filterMode, cfg.action, p.notify)
	notes.argBlind = cfg.argBlind
	notes.launchDir = launchDir(p.agent.Dir)
	if cfg.noPrograms {
		// Execs are read only for the files they open (notify backend):
		// no program is hashed.
		notes.pin = func(string) kernel.Sum { return kernel.SumSkip }
		return notes
	}
	notes.book, notes.gated = newProgramBook(), profile.GatesPrograms()
	notes.book.workspace = realDir(notes.launchDir)
	if p.mode != baseline.ModeRecord {
		notes.held = heldPrograms(profile, notes.book.workspace)
	}
	notes.pin = pinWanted(profile, p.agentUID() == 0, notes.held)
	if p.mode != baseline.ModeRecord && notes.gated {
		notes.book.outside = func(path string) bool { return !profile.AllowsProgram(path) }
	}
	return notes
}

// auditEvents is where the run's audit records go. Under
// SECCOMP_FILTER_FLAG_LOG the kernel logs the calls it hands the
// listener too: the listener reports them, with their class. (The agent
// cannot have a listener of its own: the run's makes the kernel refuse a
// second one.) A logged call of a classed syscall has the class the
// filter logs (Filter.Implied).
func (p *runPlan) auditEvents(events *collector) func(*record.SeccompEvent) {
	if !p.listened {
		return func(ev *record.SeccompEvent) { events.add(ev.Syscall()) }
	}
	return func(rec *record.SeccompEvent) {
		if rec.Code&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_USER_NOTIF {
			return
		}
		ev := rec.Syscall()
		ev.Name = p.filter.LoggedKey(ev.Arch, ev.Name)
		events.add(ev)
	}
}

// serve takes over the listener the agent's first process sends (notify:
// before its execve, which it may hold).
func (o *observer) serve(fd int) error {
	if o.notes == nil {
		unix.Close(fd)
		return errors.New("a listener was sent for a filter that does not notify")
	}
	o.notes.fd = fd
	var err error
	o.run, err = serveListener(fd, o.notes.decide)
	return err
}

// closeSub waits for the run's last audit records (the barrier).
func (o *observer) closeSub(ctx context.Context) (auditlog.Loss, error) {
	if o.sub == nil {
		return auditlog.Loss{}, nil
	}
	if o.touch == nil {
		return o.sub.Close(ctx)
	}
	// Both barriers at once: each proves its own records are in.
	var (
		touchLoss auditlog.Loss
		touchErr  error
		done      = make(chan struct{})
	)
	go func() {
		defer close(done)
		touchLoss, touchErr = o.touch.Close(ctx)
		if o.emitter != nil {
			o.emitter.close() // emit is not called after Close
		}
	}()
	loss, err := o.sub.Close(ctx)
	<-done
	if !loss.Any() {
		loss = touchLoss
	}
	if touchErr != nil {
		err = errors.Join(err, fmt.Errorf("file records: %w", touchErr))
	}
	return loss, err
}

// finish is the run's barrier: every record it caused is in, and the
// listener's goroutine, which fed the collector, has stopped.
func (o *observer) finish(ctx context.Context) (auditlog.Loss, error) {
	loss, err := o.closeSub(ctx)
	if o.notes != nil {
		_ = o.run.Close()
		if o.notes.book != nil {
			o.notes.book.close()
		}
		if o.notes.files != nil {
			err = errors.Join(err, o.notes.files.close())
		}
		if o.notes.net != nil {
			err = errors.Join(err, o.notes.net.close())
		}
	}
	return loss, err
}

// emitTouch hands an audit event of the run's rules to the files or the
// network emitter (a failed socket call goes to the network's, which
// reports refusals; the files emitter takes failures for Landlock's).
func (o *observer) emitTouch(ev touch.Event) {
	if isNetCall(ev.Syscall) {
		if o.netEmitter != nil {
			o.netEmitter.emit(ev)
		}
		return
	}
	if o.emitter != nil {
		o.emitter.emit(ev)
	}
}
