package harness

import (
	"fmt"

	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/touch"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// planFiles decides whether the run observes files, and how: on the
// audit backend by audit syscall rules scoped to a login uid of the
// run's own, which the launcher writes (the agent cannot change it:
// CAP_AUDIT_CONTROL is fenced).
func (p *runPlan) planFiles() {
	cfg := p.cfg
	p.fileCtx = fileContext(p.agent, p.envBefore)
	switch {
	case cfg.noFiles:
		p.weakened = append(p.weakened, "files not observed (--no-files): the files the agent read and wrote were neither listed nor gated")
		return
	case p.mode != baseline.ModeRecord && !p.profile.FilesGated():
		p.weakened = append(p.weakened, "the baselines have no files section [file-blind]: the files the agent touched are listed, not gated (record with --merge to add one)")
	}
	p.files = true
	if !p.notify {
		p.auid = touch.NewAUID()
		p.setup.LoginUID = p.auid
	}
}

// fileContext is what the files section's placeholders stand for in
// this run: its directory, the agent's home and temporary directory (from
// the environment it gets: agentEnv has made it explicit), and its
// runtimes' library directories. Symlinks are resolved, as the kernel
// reports paths.
func fileContext(agent Agent, env baseline.Environment) baseline.FileContext {
	ctx := baseline.FileContext{Workspace: realDir(launchDir(agent.Dir)), Tmp: realDir("/tmp")}
	if home := envValue(agent.Env, "HOME"); home != "" {
		ctx.Home = realDir(home)
	}
	if tmp := envValue(agent.Env, "TMPDIR"); tmp != "" {
		ctx.Tmp = realDir(tmp)
	}
	for _, d := range runtimeDirs(env.Runtimes) {
		ctx.Runtime = append(ctx.Runtime, realDir(d))
	}
	return ctx
}

// envValue is the last value of name in env ("" when unset).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// realDir is dir with symlinks resolved, or as given when it cannot be
// (it may not exist yet).
func realDir(dir string) string {
	if dir == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// touchArches are the arches whose file calls the rules watch: the
// native one, and the compat one (i386 on x86_64, arm on aarch64) when
// the baselines allow calls of it. Without such a section every compat
// call is itself outside the baselines (the filter reports it), so a
// rule for it would only cost time: each rule takes ~10 ms for the
// kernel to delete. A record run that learns compat calls learns their
// files only from the next run, which has the section (and then fails
// on what the record did not see).
func touchArches(p *baseline.Profile) touch.Arch {
	arches := touch.Native
	for _, a := range p.Arches() {
		if a == scmp.I386 || a == scmp.ARM {
			arches |= touch.Compat
		}
	}
	return arches
}

// installFileRules adds the run's audit syscall rules (files, network)
// before its launcher is forked (a task gets its audit context at fork)
// and undoes them, on every exit path, after the run's last record is
// in; a watchdog removes them if this process dies.
func (p *runPlan) installFileRules(s *started) error {
	set := p.touchSet()
	if set == 0 || p.notify {
		return nil
	}
	inst, err := touch.Install(p.auid, set, touchArches(p.profile))
	if err != nil {
		return fmt.Errorf("observe files and the network: %w", err)
	}
	s.undo = append(s.undo, func() {
		if err := inst.Remove(); err != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("removing the run's audit rules: %v (the watchdog or the next run removes them)", err))
		}
	})
	return nil
}

// fileEmitter turns the run's audit events into file accesses for its
// book. Everything before the run's first execve is sysgate's own
// launcher and init setting the run up (the agent's code runs only after
// that exec) and is dropped; from the exec on, every event of the run's
// login uid is the agent's. (By order, never by executable: the agent may
// run sysgate's binary too, and the launcher's pid is not known yet when
// the observer starts.)
type fileEmitter struct {
	book    *fileBook
	started bool
	// root is the run's root directory (its mount namespace, where
	// /run/sysgate is hidden and /proc is its own), held open from its
	// first event on: names of processes that have exited are resolved
	// there. "" until then, or when it could not be opened.
	root   string
	rootFD int
	// inodes are the files the run has reached by a verified name, by
	// device and inode: a later name the observer cannot resolve (a
	// /proc/self/fd/N reopen after the process is gone) that the kernel
	// recorded with one of these inodes is that file.
	inodes map[fileID]string
	// hidden are the directories the run's mount namespace covers with an
	// empty read-only tmpfs (sysgate's state): a name under one is that
	// tmpfs's, whoever resolves it later from outside the namespace.
	hidden []string
	// pending are unverified accesses a later event may confirm.
	pending map[pendingKey][]fileAccess
	// binds are the files bound over others in the run's mount namespace
	// (its resolv.conf), by target, with the identity of the file sysgate
	// wrote: a name the kernel recorded with that inode is the target,
	// even once the namespace, and with it the bind, is gone.
	binds map[string]fileID
	// dirs places names relative to directory descriptors from the run's
	// records; held are the accesses it places once the run is over.
	dirs *touch.Dirs
	held []heldAccess
	// opened is the file each process's recorded open returned under a
	// number, by a verified name: a change through that descriptor for
	// which the kernel records no file (futimens) is a write of it. A
	// guess: dup2 and close are not recorded.
	opened map[pidFD]string
}

type pidFD struct{ pid, fd int }

// heldAccess is an access by a name relative to a directory descriptor
// that Dirs places at the end of the run.
type heldAccess struct {
	access fileAccess
	held   touch.Held
	ev     touch.Event
	item   touch.Access
}

type fileID struct {
	dev   string
	inode uint64
}

func newFileEmitter(book *fileBook) *fileEmitter {
	return &fileEmitter{book: book, inodes: map[fileID]string{}, pending: map[pendingKey][]fileAccess{}, rootFD: -1, dirs: touch.NewDirs(), opened: map[pidFD]string{}}
}

// close flushes what stayed unverified and gives back the run's root.
func (f *fileEmitter) close() {
	f.flush()
	if f.rootFD >= 0 {
		unix.Close(f.rootFD)
		f.rootFD = -1
	}
}

// inHidden reports an access to a name under one of the run's hidden
// directories on a virtual file system (the tmpfs over it): the run sees
// only that empty tmpfs there, which no name from outside can reach
// again once the run's processes are gone.
func (f *fileEmitter) inHidden(a touch.Access) bool {
	if !strings.HasPrefix(a.Item.Dev, "00:") || touch.HasDotDot(a.Path) {
		return false
	}
	for _, d := range f.hidden {
		if a.Path == d || strings.HasPrefix(a.Path, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// bound reports an access to one of the run's bound files: the kernel
// recorded the target's name with the inode of the file sysgate bound
// there.
func (f *fileEmitter) bound(a touch.Access) (string, bool) {
	for target, id := range f.binds {
		if (a.Item.Abs == target || a.Path == target) && a.Item.Inode == id.inode && a.Item.Dev == id.dev {
			return target, true
		}
	}
	return "", false
}

// bindIdentities are binds' sources by target, as the audit records name
// a file (device as hex major:minor, inode).
func bindIdentities(binds []kernel.BindFile) map[string]fileID {
	out := map[string]fileID{}
	for _, b := range binds {
		var st unix.Stat_t
		if unix.Stat(b.Source, &st) == nil {
			out[b.Target] = fileID{fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev)), st.Ino}
		}
	}
	return out
}

// procEntry accepts the recorded name of a /proc file that the
// observer could not reach again: the run's /proc is a procfs of its
// own (its PID namespace), gone with the run. Such a name is the file:
// procfs has no symlinks but its magic links (self, thread-self, a
// process's fd/, cwd, root, exe, map_files/), and the agent cannot mount
// over it (CAP_SYS_ADMIN is fenced, mount is a syscall the baselines
// gate). A magic link is refused here: through it the name says nothing
// of the file; so is a "..", which leaves /proc from wherever a link
// before it led (/proc/self/root/../run/secrets/token is /run's). The
// kernel's device must be a virtual one (major 0): tmpfs, overlayfs,
// btrfs and FUSE are major 0 too, so the name must be one procfs alone
// can hold.
func procEntry(a touch.Access) (string, bool) {
	rest, ok := strings.CutPrefix(a.Path, "/proc/")
	if a.Path == "/proc" && strings.HasPrefix(a.Item.Dev, "00:") {
		return a.Path, true
	}
	if !ok || !strings.HasPrefix(a.Item.Dev, "00:") || touch.HasDotDot(rest) {
		return "", false
	}
	elems := strings.Split(rest, "/")
	if len(elems) > 0 && (elems[0] == "self" || elems[0] == "thread-self" || isDigits(elems[0])) {
		elems = elems[1:]
		if len(elems) >= 2 && elems[0] == "task" && isDigits(elems[1]) {
			elems = elems[2:]
		}
		if len(elems) > 0 {
			switch elems[0] {
			case "fd", "cwd", "root", "exe", "map_files":
				return "", false
			}
		}
	}
	return a.Path, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ownProcOf writes a process's names for its own /proc entry
// (/proc/PID/..., /proc/thread-self/...) as /proc/self/...: the baselines
// list what an agent reads of itself that way.
func ownProcOf(path string, pid int) string {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return path
	}
	first, tail, _ := strings.Cut(rest, "/")
	if first != strconv.Itoa(pid) && first != "thread-self" {
		return path
	}
	if tail == "" {
		return "/proc/self"
	}
	return "/proc/self/" + tail
}

// oPath is O_PATH: an open that reaches a file without access to it.
const oPath = 0o10000000

func (f *fileEmitter) emit(ev touch.Event) {
	if !f.started {
		if !strings.HasPrefix(ev.Syscall, "execve") {
			return
		}
		f.started = true
	}
	if f.rootFD < 0 {
		// The first of the run's processes found alive gives the run's
		// root (all share its mount namespace): the event's own, or its
		// parent (init, or a shell waiting for the child).
		for _, pid := range []int{ev.PID, ev.PPID} {
			if fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil && pid > 1 {
				f.rootFD, f.root = fd, "/proc/self/fd/"+strconv.Itoa(fd)
				break
			} else if err == nil {
				unix.Close(fd)
			}
		}
	}
	if ev.Failed {
		// Refused by the kernel (a Landlock denial under enforce): the
		// names it was asked for, nothing to resolve.
		acc := ev.FileAccesses()
		for _, a := range acc {
			if a.Path != "" {
				f.book.add(fileAccess{Path: a.Path, Op: fileOpOf(a.Op), Syscall: a.Syscall, PID: ev.PID, Exe: ev.Exe, Denied: true})
			}
		}
		if len(acc) == 0 {
			// A refused create records only the directory it would have
			// created in: the write was into it.
			for _, item := range ev.Paths {
				if item.NameType == "PARENT" && item.Abs != "" {
					f.book.add(fileAccess{Path: item.Abs, Op: baseline.FileWrite, Syscall: ev.Syscall, PID: ev.PID, Exe: ev.Exe, Denied: true})
				}
			}
		}
		return
	}
	acc := resolvedAccesses(ev, f.root)
	for i := range acc {
		if acc[i].Unverified && acc[i].Item.Relative() {
			f.byDescriptor(ev, &acc[i])
		}
	}
	f.dirs.Note(ev, acc)
	if len(acc) == 0 && ev.Flags&oPath != 0 {
		// No access, but a file reached: remember where it is, for a
		// reopen through the descriptor.
		shadow := ev
		shadow.Flags &^= oPath
		for _, a := range resolvedAccesses(shadow, f.root) {
			if a.Unverified && a.Item.Relative() {
				f.byDescriptor(ev, &a)
			}
			f.note(a)
		}
	}
	f.confirm(ev)
	f.noteOpened(ev, acc)
	for _, a := range acc {
		if a.Unverified {
			if p, ok := f.inodes[fileID{a.Item.Dev, a.Item.Inode}]; ok && a.Item.Inode != 0 {
				a.Path, a.Unverified = p, false
			} else if p, ok := f.changedThrough(ev, a); ok {
				a.Path, a.Unverified = p, false
			} else if p, ok := procEntry(a); ok {
				a.Path, a.Unverified = p, false
			} else if f.inHidden(a) {
				a.Unverified = false
			} else if p, ok := f.bound(a); ok {
				a.Path, a.Unverified = p, false
			}
		}
		a.Path = ownProcOf(a.Path, ev.PID)
		access := fileAccess{Path: a.Path, Op: fileOpOf(a.Op), Syscall: a.Syscall, PID: ev.PID, Exe: ev.Exe, Unverified: a.Unverified}
		if a.Unverified && a.Item.Relative() {
			// Relative to a descriptor: placed from the run's records
			// once every record is in (touch.Dirs).
			h := f.dirs.Hold(ev, a)
			if len(f.held) < verdict.MaxLearnedFiles {
				f.held = append(f.held, heldAccess{access, h, ev, a})
			} else {
				access.Path = h.Desc
				f.book.add(access)
			}
			continue
		}
		if a.Unverified && a.Item.Inode != 0 && a.Item.Abs != "" && len(f.pending) < verdict.MaxLearnedFiles {
			// The name leads elsewhere now (a file replaced since, as git
			// replaces its index): wait for the kernel to confirm, in a
			// later event of the run, that it named this inode.
			k := pendingKey{fileID{a.Item.Dev, a.Item.Inode}, a.Item.Abs}
			f.pending[k] = append(f.pending[k], access)
			continue
		}
		if !a.Unverified {
			f.note(a)
		}
		f.book.add(access)
	}
}

// noteOpened remembers the file a successful open returned under its
// number, when its name was verified (else forgets the number: a guess
// from an older open of it would be wrong).
func (f *fileEmitter) noteOpened(ev touch.Event, acc []touch.Access) {
	fd, ok := ev.OpenedFD()
	if !ok {
		return
	}
	k := pidFD{ev.PID, fd}
	delete(f.opened, k)
	for _, a := range acc {
		if !a.Unverified && a.Path != "" && len(f.opened) < verdict.MaxLearnedFiles {
			f.opened[k] = a.Path
		}
	}
}

// changedThrough places a change through a descriptor for which the
// kernel recorded no file (futimens: no item, no inode) at the file the
// process's recorded open returned under that number.
func (f *fileEmitter) changedThrough(ev touch.Event, a touch.Access) (string, bool) {
	fd, ok := ev.ChangedFD()
	if !ok || a.Item.Inode != 0 || a.Item.Name != "" {
		return "", false
	}
	p, ok := f.opened[pidFD{ev.PID, fd}]
	return p, ok
}

// pendingKey is an unverified access's recorded name and inode.
type pendingKey struct {
	id   fileID
	name string
}

// confirm verifies pending accesses that ev's records tie to their
// name: an item of ev names the same absolute path with the same inode
// (the rename or unlink that replaced the file records the old one).
// The kernel's own records are the proof; nothing the agent can stage
// after the fact makes a name record another inode than it had.
func (f *fileEmitter) confirm(ev touch.Event) {
	if len(f.pending) == 0 {
		return
	}
	for _, item := range ev.Paths {
		k := pendingKey{fileID{item.Dev, item.Inode}, item.Abs}
		list, ok := f.pending[k]
		if !ok || item.Inode == 0 {
			continue
		}
		delete(f.pending, k)
		for _, a := range list {
			a.Unverified = false
			f.book.add(a)
		}
	}
}

// flush hands the accesses no later event confirmed to the book, as
// unverified: the run cannot vouch for them; and the names relative to
// descriptors, placed by the run's records or, with the call and the
// descriptor named, unverified.
func (f *fileEmitter) flush() {
	for _, h := range f.held {
		a := h.access
		if p, ok, why := f.dirs.Place(h.held); ok {
			a.Path, a.Unverified = p, false
		} else if f.byDescriptor(h.ev, &h.item); !h.item.Unverified {
			// The descriptor's directory, learnt after the call, and
			// the name still leads to the inode the kernel recorded.
			a.Path, a.Unverified = h.item.Path, false
		} else {
			a.Path = h.held.Desc + ": " + why
		}
		f.book.add(a)
	}
	f.held = nil
	for k, list := range f.pending {
		for _, a := range list {
			f.book.add(a)
		}
		delete(f.pending, k)
	}
}

// note remembers the path of a file the run reached by a verified name.
// An unverified name is only a candidate (a symlink swapped since, or
// no name at all for one relative to a descriptor): a later access of
// the inode must not inherit it.
func (f *fileEmitter) note(a touch.Access) {
	if a.Unverified || a.Path == "" {
		return
	}
	if a.Item.Inode != 0 && len(f.inodes) < verdict.MaxLearnedFiles {
		f.inodes[fileID{a.Item.Dev, a.Item.Inode}] = a.Path
	}
}

// byDescriptor ties an access by a name relative to a directory
// descriptor through the directory the process's recorded open returned
// under that number (touch.Dirs.Candidate), under the roots
// resolvedAccesses tries: kept only when the name leads to the inode the
// kernel recorded.
func (f *fileEmitter) byDescriptor(ev touch.Event, a *touch.Access) {
	name := f.dirs.Candidate(ev, a.Item)
	if name == "" {
		return
	}
	for _, root := range []string{touch.RootOf(ev.PID), f.root, "/"} {
		if root == "" {
			continue
		}
		if p, ok := ev.ResolveCandidate(root, name, a.Item); ok {
			a.Path, a.Unverified = p, false
			return
		}
	}
}

// resolvedAccesses ties ev's accesses to files under the process's root
// while it lives, and what that leaves unverified under the run's root
// (runRoot: the process may have exited between RootOf and the walk),
// then under ours (a run without a mount namespace of its own). The
// inode check decides each time.
func resolvedAccesses(ev touch.Event, runRoot string) []touch.Access {
	root := touch.RootOf(ev.PID)
	acc := ev.ResolvedAccesses(root)
	for _, alt := range []string{runRoot, "/"} {
		if alt == "" || alt == root {
			continue
		}
		var again []touch.Access
		for i, a := range acc {
			if !a.Unverified {
				continue
			}
			if again == nil {
				again = ev.ResolvedAccesses(alt)
			}
			if i < len(again) && !again[i].Unverified {
				a := again[i]
				if alt == runRoot {
					// Named from the run's root: the path is the run's.
					a.Path = strings.TrimPrefix(a.Path, runRoot)
				}
				acc[i] = a
			}
		}
	}
	return acc
}

// fileOpOf names touch's access in the baselines' terms.
func fileOpOf(op touch.Op) baseline.FileOp {
	switch op {
	case touch.Write:
		return baseline.FileWrite
	case touch.Exec:
		return baseline.FileExec
	case touch.Delete:
		return baseline.FileDelete
	}
	return baseline.FileRead
}
