package harness

import (
	"os"
	"sort"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

type syscallKey struct {
	arch scmp.Arch
	name string
}

// firstCall is the first process seen making a syscall, and the other
// programs (by executable) that made it too.
type firstCall struct {
	number    int
	pid       int
	exe, comm string
	also      []verdict.Caller
	extra     map[string]bool // programs past maxAlso
	more      int             // the same, from a decoded verdict.Violation
	// start: the call was a process's first, an execve made in the
	// launcher's image, i.e. the agent's start (see Violation.AgentStart).
	start bool
}

// maxAlso bounds the other programs kept per syscall; Violation.More
// counts the programs beyond it.
const maxAlso = 7

// note records one more call by ev; the first caller's own calls are not
// repeated in also.
func (f *firstCall) note(ev *observe.Syscall) {
	if ev.Exe == f.exe {
		return
	}
	for i := range f.also {
		if f.also[i].Exe == ev.Exe {
			f.also[i].Count++
			return
		}
	}
	if len(f.also) < maxAlso {
		f.also = append(f.also, verdict.Caller{PID: ev.PID, Exe: ev.Exe, Comm: ev.Comm, Count: 1})
		return
	}
	if f.extra == nil {
		f.extra = map[string]bool{}
	}
	if len(f.extra) < verdict.MaxKept { // past it, More is a lower bound
		f.extra[ev.Exe] = true
	}
}

// collector accumulates one run's events. add runs on auditlog's dispatch
// goroutine; the harness reads the totals after the barrier.
type collector struct {
	mu         sync.Mutex
	obs        *baseline.Observation
	first      map[syscallKey]*firstCall
	procs      map[int]*verdict.Process
	events     uint64
	unknownABI uint64
	progress   func(*observe.Syscall)
	// refusal says whether an event is a refused channel (see
	// refusalOf): such events go to refused, not into the observation.
	refusal func(*observe.Syscall) bool
	refused *baseline.Observation
	seen    map[ProcessSource]bool
	// notKept counts the calls of processes past MaxKept.
	notKept verdict.NotKept
}

// ProcessSource is a process and one of the two ways its calls arrive:
// logged (the audit stream) or notified (the run's listener). Each keeps
// its order, but not across the two; a process's first call is first
// within its source.
type ProcessSource struct {
	PID      int
	Notified bool
}

// Notified reports whether ev came from the run's listener.
func Notified(ev *observe.Syscall) bool {
	return ev.Action&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_USER_NOTIF
}

// launcherExe is the executable the agent's first process runs until its
// execve: this process's own, as the launcher shares its image. "" (not
// known) matches no event, and the start is then named by that exe.
var launcherExe = sync.OnceValue(func() string {
	exe, _ := os.Executable()
	return exe
})

// AgentStart reports whether ev, its process's first call from its
// source (ProcessSource) when firstOfProcess, is the execve that starts
// the agent: the launcher loads
// the filter as its last step before it, so the call is logged in
// sysgate's image and names sysgate's executable.
func AgentStart(ev *observe.Syscall, firstOfProcess bool) bool {
	return firstOfProcess && (ev.Name == "execve" || ev.Name == "execveat") && ev.Exe != "" && ev.Exe == launcherExe()
}

func newCollector(agent string, progress func(*observe.Syscall)) *collector {
	return &collector{
		obs:      baseline.NewObservation(agent),
		first:    map[syscallKey]*firstCall{},
		procs:    map[int]*verdict.Process{},
		seen:     map[ProcessSource]bool{},
		progress: progress,
		refused:  baseline.NewObservation(agent),
	}
}

// refusalOf tells the refused attempts at a channel the filter cannot see
// (baseline.Channels) from the run's other records. The filter is loaded
// with SECCOMP_FILTER_FLAG_LOG, so the kernel logs its ERRNO actions, with
// code SECCOMP_RET_ERRNO (the errno itself is not in the record). In
// record and check mode only the channel rules return ERRNO. Under
// enforce's EPERM default a listener refusal looks the same as the default
// refusing seccomp altogether: it counts as refused only when the
// baselines allow seccomp (so only the listener rule can have refused it),
// and as a violation otherwise.
func refusalOf(p *baseline.Profile, mode baseline.Mode, action baseline.Action) func(*observe.Syscall) bool {
	errnoDefault := mode == baseline.ModeEnforce && action != baseline.ActionKill
	return func(ev *observe.Syscall) bool {
		if ev.Action&unix.SECCOMP_RET_ACTION_FULL != unix.SECCOMP_RET_ERRNO {
			return false
		}
		c, ok := baseline.ChannelOf(ev.Name)
		return ok && (!errnoDefault || !c.Listener || p.Allows(ev.Arch, ev.Name))
	}
}

// refusedFindings lists the refused attempts, sorted.
func (c *collector) refusedFindings() []baseline.Finding {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []baseline.Finding{}
	for _, arch := range c.refused.Arches() {
		for _, name := range c.refused.Names(arch) {
			out = append(out, baseline.Finding{Arch: arch, Syscall: name, Count: c.refused.Count(arch, name), Risk: risk.Of(name), Level: risk.LevelOf(name)})
		}
	}
	return out
}

func (c *collector) add(ev *observe.Syscall) {
	c.mu.Lock()
	c.events++
	p := c.procs[ev.PID]
	if p == nil && len(c.procs) < verdict.MaxKept {
		p = &verdict.Process{PID: ev.PID}
		c.procs[ev.PID] = p
	}
	// A process past MaxKept is neither listed nor remembered as seen:
	// it is not the agent's first process, which comes first.
	first := false
	if p != nil {
		source := ProcessSource{ev.PID, Notified(ev)}
		first = !c.seen[source]
		c.seen[source] = true
		// The exe changes on execve; keep the latest, which names the
		// program (the launcher's image only until another is known: the
		// audit record of the agent's start may arrive after the
		// listener's first call of the agent).
		if ev.Exe != launcherExe() || p.Exe == "" {
			p.Exe, p.Comm = ev.Exe, ev.Comm
		}
		p.Events++
	} else {
		c.notKept.ProcessCalls++
	}
	if !ev.Arch.Valid() {
		c.unknownABI++
	} else if c.refusal != nil && c.refusal(ev) {
		c.refused.Add(ev.Arch, ev.Name, 1)
	} else {
		c.obs.Add(ev.Arch, ev.Name, 1)
		k := syscallKey{ev.Arch, ev.Name}
		if f, ok := c.first[k]; !ok {
			c.first[k] = &firstCall{number: ev.Number, pid: ev.PID, exe: ev.Exe, comm: ev.Comm,
				start: AgentStart(ev, first)}
		} else {
			f.note(ev)
		}
	}
	c.mu.Unlock()
	if c.progress != nil {
		c.progress(ev)
	}
}

// notKeptCounts is what the collector did not keep.
func (c *collector) notKeptCounts() verdict.NotKept {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notKept
}

// processes returns the processes sorted by pid.
func (c *collector) processes() []verdict.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]verdict.Process, 0, len(c.procs))
	for _, p := range c.procs {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// violations turns a diff's new findings into violations attributed to
// the processes that made them first.
func (c *collector) violations(news []baseline.Finding) verdict.Violations {
	return verdict.Attribute(news, c.firstCalls())
}

// firstCalls returns who made each syscall first, as a copy.
func (c *collector) firstCalls() map[verdict.CallKey]verdict.Attribution {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[verdict.CallKey]verdict.Attribution, len(c.first))
	for k, v := range c.first {
		out[verdict.CallKey{Arch: k.arch, Syscall: k.name}] = verdict.Attribution{Number: v.number, PID: v.pid, Exe: v.exe, Comm: v.comm,
			Also: append([]verdict.Caller(nil), v.also...), More: len(v.extra) + v.more, AgentStart: v.start}
	}
	return out
}
