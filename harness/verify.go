package harness

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// programBook collects the programs a run ran and what the check of
// each exec found afterwards.
//
// An exec is read while its caller waits in the call, but the kernel
// reads the path again after the listener's answer: another thread of a
// hostile agent can change it in between (or swap a symlink). So each
// exec is checked afterwards against /proc/<pid>/exe, which names what
// the kernel really runs: at the caller's next exec, or by a watcher that
// polls until the executable changes or the process is gone.
type programBook struct {
	mu         sync.Mutex
	runs       map[string]*verdict.ProgramRun
	mismatches []verdict.ProgramViolation
	// unverified: execs of another program whose process was gone
	// before /proc showed its new executable; unverifiedPaths counts
	// them by the program each named (up to MaxKept programs).
	unverified      uint64
	unverifiedPaths map[string]uint64
	// unseen: execs whose path could not be read and whose program /proc
	// never showed: a program ran that the run cannot name.
	unseen []string
	// outside tells a program outside the baselines' programs (nil when
	// they gate none): what is past MaxKept is counted by it.
	outside func(path string) bool
	notKept verdict.NotKept
	// workspace is the run's directory, symlinks resolved: the programs
	// that ran from it are the repository's own (HeldPrograms).
	workspace string
	pending   map[int]*pendingExec // by thread group
	stop      chan struct{}
	wg        sync.WaitGroup
	// readExe identifies a process's executable (kernel.ReadExe; a fake
	// in tests), alive whether the process is still the one watched.
	readExe  func(pid int) (kernel.FileID, string, error)
	readStat func(pid int) (kernel.Stat, error)
	// sumExe hashes a process's executable (through /proc/<pid>/exe).
	sumExe    func(pid int, how kernel.Sum) (kernel.FileID, string, error)
	openPidfd func(pid int) (int, error)
}

// pendingExec is an exec answered and not yet checked.
type pendingExec struct {
	seen  *execSeen
	pidfd int // -1 without one: every read then counts as the process's; set once, closed by watch
	done  bool
	// unreadable: the process's executable was closed to sysgate after
	// the exec although the caller's was open before it (an exec of a
	// file sysgate may not read makes the process non-dumpable): the
	// exec ran something, which only a later read can name.
	unreadable bool
	// ran: an exec that named no file sysgate could open took effect
	// anyway (the process took the name the exec gave it).
	ran bool
}

func newProgramBook() *programBook {
	return &programBook{runs: map[string]*verdict.ProgramRun{}, unverifiedPaths: map[string]uint64{}, pending: map[int]*pendingExec{}, stop: make(chan struct{}), readExe: kernel.ReadExe, readStat: kernel.ReadStat, openPidfd: kernel.PidfdOpen, sumExe: sumExe}
}

// add counts a program run. Past MaxKept programs a new one is only
// counted, and counted as a violation when it is outside the baselines.
func (b *programBook) add(run verdict.ProgramRun) {
	if r, ok := b.runs[run.Path]; ok {
		r.Count += run.Count
		for _, sum := range run.SHA256 {
			if !slices.Contains(r.SHA256, sum) {
				r.SHA256 = append(r.SHA256, sum)
				slices.Sort(r.SHA256)
			}
		}
		return
	}
	if len(b.runs) >= verdict.MaxKept {
		b.notKept.ProgramExecs += run.Count
		if b.outside != nil && b.outside(run.Path) {
			b.notKept.ProgramViolations += run.Count
		}
		return
	}
	cp := run
	cp.SHA256 = slices.Clone(run.SHA256)
	b.runs[run.Path] = &cp
}

// exec records an exec that is about to be answered with CONTINUE: its
// programs now, the check of what ran once it shows. A previous exec of
// the same process is settled first: the caller is stopped in this call,
// so its executable is what its last exec left.
func (b *programBook) exec(e *execSeen) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p := b.pending[e.tgid]; p != nil && !p.done {
		if id, path, err := b.readExe(e.tgid); err == nil {
			b.settleLocked(p, id, path)
		}
	}
	for _, r := range e.runs {
		b.add(r)
	}
	p := &pendingExec{seen: e, pidfd: -1}
	if fd, err := b.openPidfd(e.tgid); err == nil {
		p.pidfd = fd
	}
	b.pending[e.tgid] = p
	b.wg.Add(1)
	go b.watch(p)
}

// refuse records the programs of an exec that enforce refused: they did
// not run, and are reported as outside the baseline. An exec whose file
// sysgate could not resolve (readErr: not a missing file) is a violation
// of its own: enforce refuses what it cannot check, and says so.
func (b *programBook) refuse(e *execSeen) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range e.runs {
		b.add(r)
	}
	if e.readErr != nil {
		p := e.requested
		if p == "" {
			p = "<unreadable path>"
		}
		run := verdict.ProgramRun{Path: p, Role: verdict.RoleProgram, Argv: e.argv, Parent: e.parent, PID: e.tgid, Count: 1}
		b.add(run)
		b.mismatches = append(b.mismatches, verdict.ProgramViolation{ProgramRun: run, Mismatch: fmt.Sprintf("refused: sysgate could not check the program it names (%v)", e.readErr)})
	}
}

// exiting settles tgid's pending exec from its executable while the
// process, stopped in its exit_group, still has one: a program that
// exits before the watcher's next look is then verified all the same.
func (b *programBook) exiting(tgid int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pending[tgid]
	if p == nil || p.done {
		return
	}
	if id, path, err := b.readExe(tgid); err == nil && id != p.seen.pre {
		b.settleLocked(p, id, path)
	}
}

// watch polls the process's executable until it changes from the one it
// had at the exec, the process is gone, or the run is over.
func (b *programBook) watch(p *pendingExec) {
	defer b.wg.Done()
	if p.pidfd >= 0 {
		// The watcher owns the pidfd: whoever settles the exec leaves
		// it open until the watcher is done reading.
		defer unix.Close(p.pidfd)
	}
	wait := 20 * time.Microsecond
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		id, path, err := b.readExe(p.seen.tgid)
		alive := p.pidfd < 0 || kernel.Alive(p.pidfd)
		b.mu.Lock()
		if p.done {
			b.mu.Unlock()
			return
		}
		if err == nil && alive && id != p.seen.pre {
			b.settleLocked(p, id, path)
			b.mu.Unlock()
			return
		}
		if err != nil && alive && errors.Is(err, unix.EACCES) && p.seen.pre != (kernel.FileID{}) {
			p.unreadable = true
		}
		if alive && !p.seen.claimed() && p.seen.readErr == nil && b.renamedByExec(p) {
			p.ran = true
		}
		if err != nil && alive && b.zombieRan(p) {
			// Exited already: its name says the exec happened.
			b.finishLocked(p)
			b.mu.Unlock()
			return
		}
		if !alive || (err != nil && !errors.Is(err, unix.EACCES)) {
			b.goneLocked(p)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		select {
		case <-b.stop:
			// The run is over: one last look, then it is gone.
			id, path, err := b.readExe(p.seen.tgid)
			b.mu.Lock()
			switch {
			case p.done:
			case err == nil:
				b.settleLocked(p, id, path)
			default:
				b.goneLocked(p)
			}
			b.mu.Unlock()
			return
		case <-timer.C:
		}
		wait = min(2*wait, 10*time.Millisecond)
		timer.Reset(wait)
	}
}

// zombieRan reports whether the watched process, exited but not yet
// reaped (its exe link is gone), carries the name its exec gave it: the
// kernel names a process after the file its exec named, so a name other
// than the caller's says the exec happened. A weaker check than the
// executable (a program can rename itself before it exits), made only
// when that is unreadable.
func (b *programBook) zombieRan(p *pendingExec) bool {
	e := p.seen
	if !e.claimed() || e.comm == "" {
		return false
	}
	st, err := b.readStat(e.tgid)
	if err != nil || st.State != 'Z' || st.Comm == e.comm {
		return false
	}
	for _, name := range []string{path.Base(e.requested), path.Base(claimedPath(e))} {
		if len(name) > 15 { // TASK_COMM_LEN - 1
			name = name[:15]
		}
		if st.Comm == name {
			return true
		}
	}
	return false
}

// renamedByExec reports whether the process of an exec that named no
// file sysgate could open now carries the name that exec gives (the
// base name of its path, cut as the kernel cuts it), and not the
// caller's: the exec took effect, so the path reached a file after all.
func (b *programBook) renamedByExec(p *pendingExec) bool {
	e := p.seen
	name := path.Base(e.requested)
	if e.requested == "" || e.comm == "" {
		return false
	}
	if len(name) > 15 { // TASK_COMM_LEN - 1
		name = name[:15]
	}
	st, err := b.readStat(e.tgid)
	return err == nil && st.Comm != e.comm && st.Comm == name
}

// settleLocked checks an exec against the executable its process has now.
func (b *programBook) settleLocked(p *pendingExec, id kernel.FileID, path string) {
	b.finishLocked(p)
	e := p.seen
	switch {
	case id == e.pre && e.claimed():
		// Still the caller's program: the exec failed, or ran the same
		// file again.
	case e.claimed() && id == e.expect:
		// It ran what it named: the same file, and (for a pinned
		// program) the content checked when the exec was answered,
		// unless the file was rewritten before the kernel read it.
		if e.expectSum == "" {
			return
		}
		how := kernel.SumCached
		if e.expectFresh {
			how = kernel.SumFresh
		}
		if got, sum, err := b.sumExe(e.tgid, how); err == nil && got == id && sum != e.expectSum {
			run := verdict.ProgramRun{Path: path, Role: verdict.RoleProgram, Argv: e.argv, Parent: e.parent, PID: e.tgid, Count: 1, SHA256: []string{sum}}
			b.mismatchLocked(e, run, fmt.Sprintf("content: the kernel ran %s with sha256 %s; sysgate checked sha256 %s when it answered the exec (the file changed in between)", path, sum, e.expectSum))
		}
	case !e.claimed() && id == e.pre:
	case e.readErr != nil || !e.claimed():
		// sysgate could not read (or resolve) the path; /proc names the
		// program that ran.
		run := verdict.ProgramRun{Path: path, Role: verdict.RoleProgram, Argv: e.argv, Parent: e.parent, PID: e.tgid, Count: 1}
		if e.readErr == nil {
			// It named no file sysgate could open, and ran this one:
			// the path changed in between.
			b.mismatchLocked(e, run, fmt.Sprintf("the exec named %s, which did not exist when sysgate read it; the kernel ran %s", quoteOrUnreadable(e.requested), path))
			return
		}
		b.add(run)
	default:
		run := verdict.ProgramRun{Path: path, Role: verdict.RoleProgram, Argv: e.argv, Parent: e.parent, PID: e.tgid, Count: 1}
		b.mismatchLocked(e, run, fmt.Sprintf("the exec named %s; the kernel ran %s (the path changed after sysgate read it)", claimedPath(e), path))
	}
}

// pinMismatch records an exec whose program is not the content its
// baseline entry pins (the run itself is counted by exec or refuse).
func (b *programBook) pinMismatch(run verdict.ProgramRun, why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mismatches = append(b.mismatches, verdict.ProgramViolation{ProgramRun: run, Mismatch: why})
}

func sumExe(pid int, how kernel.Sum) (kernel.FileID, string, error) {
	return programSums.SumFile("/proc/"+strconv.Itoa(pid)+"/exe", how)
}

func (b *programBook) mismatchLocked(e *execSeen, run verdict.ProgramRun, why string) {
	if e.requested != "" && e.requested != run.Path {
		run.Requested = e.requested
	}
	b.add(run)
	if len(b.mismatches) >= verdict.MaxKept {
		b.notKept.ProgramViolations++
		return
	}
	b.mismatches = append(b.mismatches, verdict.ProgramViolation{ProgramRun: run, Mismatch: why})
}

// goneLocked: the process exited (or the run ended) before /proc showed
// a new executable.
func (b *programBook) goneLocked(p *pendingExec) {
	b.finishLocked(p)
	e := p.seen
	switch {
	case e.readErr != nil && len(b.unseen) >= verdict.MaxKept:
		b.notKept.UnseenExecs++
	case e.readErr != nil:
		b.unseen = append(b.unseen, fmt.Sprintf("pid %d: %v", e.tgid, e.readErr))
	case p.unreadable:
		// Counting it unverified would pass a program sysgate never
		// saw: one it may not read, run through a name it could not
		// follow, is exactly that.
		b.unseen = append(b.unseen, fmt.Sprintf("pid %d: exec of %s: the program it ran was closed to sysgate until the process was gone", e.tgid, quoteOrUnreadable(e.requested)))
	case p.ran:
		b.unseen = append(b.unseen, fmt.Sprintf("pid %d: exec of %s: the path reached no file sysgate could open, yet the exec ran", e.tgid, quoteOrUnreadable(e.requested)))
	case e.claimed() && e.expect != e.pre:
		b.unverified++
		path := claimedPath(e)
		if _, ok := b.unverifiedPaths[path]; ok || len(b.unverifiedPaths) < verdict.MaxKept {
			b.unverifiedPaths[path]++
		}
	}
}

func (b *programBook) finishLocked(p *pendingExec) {
	p.done = true
	if b.pending[p.seen.tgid] == p {
		delete(b.pending, p.seen.tgid)
	}
}

// close ends the watchers (the run is over: every process is gone) and
// waits for them.
func (b *programBook) close() {
	close(b.stop)
	b.wg.Wait()
}

// programs returns the programs run, sorted by path.
func (b *programBook) programs() []verdict.ProgramRun {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]verdict.ProgramRun, 0, len(b.runs))
	for _, r := range b.runs {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func claimedPath(e *execSeen) string {
	for _, r := range e.runs {
		if r.Role != verdict.RoleInterpreter {
			return r.Path
		}
	}
	return e.requested
}

func quoteOrUnreadable(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
