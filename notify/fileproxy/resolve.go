package fileproxy

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// pathMax is the kernel's limit on a path argument, with its NUL.
const pathMax = 4096

// start is where the lookup of one path argument begins in the
// supervisor's view: a directory descriptor, the rest of the path, and
// the openat2 resolve flags that keep it the caller's lookup.
type start struct {
	dirfd   int
	rel     string
	resolve uint64
}

// readPath reads a path argument once; every decision and action on it
// uses this copy, whatever the caller's memory says afterwards.
func (h *held) readPath(addr uint64) (string, unix.Errno) {
	s, long, err := kernel.ReadMemString(h.c.tid, addr, pathMax)
	if err != nil {
		return "", unix.EFAULT
	}
	if long {
		return "", unix.ENAMETOOLONG
	}
	return s, 0
}

// dirfdArg is a dirfd register argument: an int in the low 32 bits.
func dirfdArg(v uint64) int { return int(int32(uint32(v))) }

// start says where the caller's lookup of name from dirfd begins:
//   - a name in the caller's own /proc entry (/proc/self, /dev/fd/N,
//     /dev/stdin...) means the caller there; its descriptors are taken
//     over with pidfd_getfd and reopened through this process's own
//     /proc/self/fd, so the reopen is checked against the file they name;
//   - an absolute name resolves in the caller's root (RESOLVE_IN_ROOT:
//     ".." stops there, absolute symlinks land there, as for the caller);
//   - a relative one from its cwd or its dirfd (taken over). When the
//     caller's root is not this process's, the relative name is joined
//     to the directory's path in the caller's root instead, so symlinks
//     on the way resolve there too.
//
// Magic links met on the way are refused (ELOOP): followed from here,
// /proc/self in them would name the supervisor.
func (h *held) start(dirfd int, name string, callerResolve uint64) (start, unix.Errno) {
	const noMagic = unix.RESOLVE_NO_MAGICLINKS
	if name == "" {
		return start{}, unix.ENOENT
	}
	if callerResolve&(unix.RESOLVE_IN_ROOT|unix.RESOLVE_BENEATH) != 0 {
		// openat2 scoped to dirfd: the caller chose its root.
		fd, e := h.dir(dirfd)
		return start{fd, name, callerResolve | noMagic}, e
	}
	if host, ok := kernel.CallerProcPath(h.c.tid, h.c.tgid, name); ok {
		return h.ownProc(host, callerResolve)
	}
	if strings.HasPrefix(name, "/") {
		root, e := h.root()
		return start{root, name, callerResolve | unix.RESOLVE_IN_ROOT | noMagic}, e
	}
	fd, e := h.dir(dirfd)
	if e != 0 {
		return start{}, e
	}
	same, e := h.sameRoot()
	if e != 0 || same {
		return start{fd, name, callerResolve | noMagic}, e
	}
	dir, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !strings.HasPrefix(dir, "/") {
		return start{}, unix.ENOENT
	}
	root, e := h.root()
	return start{root, dir + "/" + name, callerResolve | unix.RESOLVE_IN_ROOT | noMagic}, e
}

// ownProc turns a name in the caller's /proc entry (see
// kernel.CallerProcPath) into a lookup from here: a descriptor of the
// caller becomes one of ours, everything else stays in its /proc entry.
func (h *held) ownProc(host string, callerResolve uint64) (start, unix.Errno) {
	rest := strings.TrimPrefix(host, "/proc/"+strconv.Itoa(h.c.tgid)+"/")
	// /proc/thread-self/fd is the thread's table, which pidfd_getfd
	// reads too: threads of one process share it unless one unshared.
	rest = strings.TrimPrefix(rest, "task/"+strconv.Itoa(h.c.tid)+"/")
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) >= 2 && parts[0] == "fd" {
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 0 {
			return start{}, unix.ENOENT
		}
		fd, e := h.takeFD(n)
		if e != 0 {
			// A descriptor the caller does not have: its lookup fails.
			return start{}, unix.ENOENT
		}
		rel := "/proc/self/fd/" + strconv.Itoa(fd)
		if len(parts) == 3 {
			rel += "/" + parts[2]
		}
		return start{unix.AT_FDCWD, rel, callerResolve}, 0
	}
	return start{unix.AT_FDCWD, host, callerResolve}, 0
}

// dir is the caller's directory for a dirfd argument: its cwd for
// AT_FDCWD, else its descriptor.
func (h *held) dir(dirfd int) (int, unix.Errno) {
	if dirfd == unix.AT_FDCWD {
		return h.openProc("cwd")
	}
	if dirfd < 0 {
		return -1, unix.EBADF
	}
	return h.takeFD(dirfd)
}

func (h *held) root() (int, unix.Errno) { return h.openProc("root") }

func (h *held) openProc(link string) (int, unix.Errno) {
	fd, err := unix.Open(h.procPath(link), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, unix.ENOENT
	}
	return h.keep(fd), 0
}

// takeFD duplicates the caller's descriptor n into this process.
func (h *held) takeFD(n int) (int, unix.Errno) {
	if h.pidfd < 0 {
		pidfd, err := kernel.PidfdOpen(h.c.tgid)
		if err != nil {
			return -1, unix.ESRCH
		}
		h.pidfd = h.keep(pidfd)
	}
	fd, err := kernel.PidfdGetfd(h.pidfd, n)
	var errno unix.Errno
	if errors.As(err, &errno) {
		return -1, errno
	}
	if err != nil {
		return -1, unix.EBADF
	}
	return h.keep(fd), 0
}

// sameRoot: the caller's root is this process's (same mount, same
// directory), so lookups from its directories need no rewriting.
func (h *held) sameRoot() (bool, unix.Errno) {
	root, e := h.root()
	if e != 0 {
		return false, e
	}
	var st unix.Statx_t
	if err := unix.Statx(root, "", unix.AT_EMPTY_PATH, unix.STATX_INO|unix.STATX_MNT_ID, &st); err != nil {
		return false, unix.ENOENT
	}
	return st.Mnt_id == h.p.rootMntID && st.Ino == h.p.rootIno, 0
}

// fdPath is the absolute path of a descriptor of this process.
func fdPath(fd int) string {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return ""
	}
	return p
}

// supervisorProc: path is in this process's own /proc entry (or one of
// its threads'), which a symlink into /proc/self reaches from here. The
// caller never names that: refuse it.
func (h *held) supervisorProc(path string) bool {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(first)
	if err != nil {
		return false
	}
	if n == h.p.pid {
		return true
	}
	_, err = os.Lstat("/proc/self/task/" + first)
	return err == nil
}

// split cuts a path into its parent and final name, as a create or
// remove looks it up: "a/b" → "a", "b"; "b" → ".", "b"; "/b" → "/", "b".
// Trailing slashes are kept off the name; dirOnly says there were some.
func split(p string) (dir, base string, dirOnly bool) {
	trimmed := strings.TrimRight(p, "/")
	dirOnly = len(trimmed) != len(p)
	if trimmed == "" {
		return "/", ".", true
	}
	i := strings.LastIndexByte(trimmed, '/')
	switch {
	case i < 0:
		return ".", trimmed, dirOnly
	case i == 0:
		return "/", trimmed[1:], dirOnly
	}
	return trimmed[:i], trimmed[i+1:], dirOnly
}

// procWorldReadable are the files of a /proc/PID directory the kernel
// lets any process read (no ptrace check): ps, pgrep and top read these
// of every process.
var procWorldReadable = map[string]bool{
	"stat": true, "statm": true, "status": true, "cmdline": true, "comm": true, "cgroup": true,
	"loginuid": true, "sessionid": true, "oom_score": true, "oom_score_adj": true, "oom_adj": true,
	"wchan": true, "sched": true, "schedstat": true, "cpuset": true, "uid_map": true, "gid_map": true,
	"projid_map": true, "setgroups": true, "timerslack_ns": true, "task": true, "ns": true, "attr": true,
}

// otherProcess reports whether pre, reached through procfs, is a file of
// another process than the caller's that only a ptrace check lets one
// read (environ, mem, maps, auxv, fd/, ...). path is pre's name as the
// caller's /proc numbers it.
func (h *held) otherProcess(pre int, path string) bool {
	var fs unix.Statfs_t
	if unix.Fstatfs(pre, &fs) != nil || fs.Type != unix.PROC_SUPER_MAGIC {
		return false
	}
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return false
	}
	elems := strings.Split(rest, "/")
	pid, err := strconv.Atoi(elems[0])
	if err != nil {
		return false // /proc/meminfo, /proc/sys/...: no process's
	}
	// Our own procfs numbers processes as we do; the caller's (a PID
	// namespace of its own) as it does.
	tgid, tidSelf := h.c.nsTgid, h.c.nsTid
	var st, ours unix.Stat_t
	if unix.Fstat(pre, &st) == nil && unix.Stat("/proc/self", &ours) == nil && st.Dev == ours.Dev {
		tgid, tidSelf = h.c.tgid, h.c.tid
	}
	own := pid == tgid || pid == tidSelf
	elems = elems[1:]
	if len(elems) >= 2 && elems[0] == "task" {
		if tid, err := strconv.Atoi(elems[1]); err == nil {
			own = own || tid == tidSelf
			elems = elems[2:]
		}
	}
	if own || len(elems) == 0 || procWorldReadable[elems[0]] {
		return false
	}
	// A descendant of the caller that the caller's uid owns (a dumpable
	// process of its own, as the kernel shows it) is one the caller may
	// trace: its own child's /proc is its business.
	return !(st.Uid == h.c.cred.UID && h.descendant(pre, pid))
}

// descendant reports whether pid, in the procfs pre lies in, is a
// descendant of the caller: its PPid chain, read in the same procfs,
// reaches the caller.
func (h *held) descendant(pre int, pid int) bool {
	// The procfs pre lies in is the one at /proc in the caller's root.
	root, e := h.root()
	if e != 0 {
		return false
	}
	procRoot, err := unix.Openat(root, "proc", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(procRoot)
	var st, ours unix.Stat_t
	self := h.c.nsTgid
	if unix.Fstat(procRoot, &st) == nil && unix.Stat("/proc", &ours) == nil && st.Dev == ours.Dev {
		self = h.c.tgid
	}
	for range 64 {
		fd, err := unix.Openat(procRoot, strconv.Itoa(pid)+"/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		b := make([]byte, 4096)
		n, _ := unix.Read(fd, b)
		unix.Close(fd)
		ppid := -1
		for _, line := range strings.Split(string(b[:max(n, 0)]), "\n") {
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		switch {
		case ppid == self:
			return true
		case ppid <= 1:
			return false
		}
		pid = ppid
	}
	return false
}
