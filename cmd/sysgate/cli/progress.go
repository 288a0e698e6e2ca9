//go:build linux

package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/untrusted"
	"github.com/sysgate/sysgate/observe"
)

// progress prints each syscall the first time the run makes it, while
// the agent runs; only on a terminal.
type progress struct {
	w     io.Writer
	mu    sync.Mutex
	seen  map[string]bool
	procs map[harness.ProcessSource]bool // processes seen per source, to tell the agent's start
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return nil
	}
	return &progress{w: w, seen: map[string]bool{}, procs: map[harness.ProcessSource]bool{}}
}

func (p *progress) event(ev *observe.Syscall) {
	key := fmt.Sprintf("%s %s", archName(ev.Arch), ev.Name)
	p.mu.Lock()
	defer p.mu.Unlock()
	source := harness.ProcessSource{PID: ev.PID, Notified: harness.Notified(ev)}
	first := !p.procs[source]
	p.procs[source] = true
	if p.seen[key] {
		return
	}
	p.seen[key] = true
	who := untrusted.Terminal(ev.Exe) // the agent's path, on the caller's terminal
	if harness.AgentStart(ev, first) {
		who = "the agent's start"
	}
	fmt.Fprintf(p.w, "sysgate: + %-28s %s (pid %d)\n", key, who, ev.PID)
}

func archName(a scmp.Arch) string {
	if a.Valid() {
		return a.String()
	}
	return "unknown-abi"
}
