package harness

import (
	"fmt"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/listener"
)

// runListener serves a run's listener: the audit backend's run filter
// (see baseline's compileListener), which notifies nothing, so any call
// that does arrive is let through; or the notify backend's filter, whose
// calls a notifier decides. The run is over when it hangs up. A nil *runListener is a run
// without a listener (an abandoned run of a harness that died): over and
// err do nothing, and the kill loop ends when the session lists nobody.
type runListener struct {
	l *listener.Listener
}

func serveListener(fd int, decide listener.Decide) (*runListener, error) {
	if fd < 0 {
		return nil, fmt.Errorf("%w: the child handed over no listener", ErrAgentStart)
	}
	if decide == nil {
		decide = func(*kernel.SeccompNotif) listener.Answer { return listener.Continue }
	}
	r := &runListener{}
	l, err := listener.Serve(fd, decide)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAgentStart, err)
	}
	r.l = l
	return r, nil
}

// Over reports whether every process of the run has exited.
func (r *runListener) Over() bool { return r != nil && r.l.Over() }

// Err is why the listener stopped serving early, or nil.
func (r *runListener) Err() error {
	if r == nil {
		return nil
	}
	return r.l.Err()
}

// OverFds is the fd that becomes readable when the run is over, as a
// list for polling (empty without a listener).
func (r *runListener) OverFds() []int {
	if r == nil {
		return nil
	}
	return []int{r.l.OverFd()}
}

// Close stops serving; held calls of processes still alive then fail.
func (r *runListener) Close() error {
	if r == nil {
		return nil
	}
	return r.l.Close()
}
