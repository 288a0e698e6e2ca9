package netproxy

import (
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// callerDirs are the caller's root and cwd, held open: a Unix socket
// path is looked up from them as the kernel would for the caller, in
// its mount namespace, not in the supervisor's.
type callerDirs struct {
	root, cwd int
	// sameRoot: the caller's root is the supervisor's, so a plain
	// lookup (absolute symlinks, "..") is the caller's own.
	sameRoot bool
}

func openCallerDirs(pid int) (*callerDirs, error) {
	base := "/proc/" + strconv.Itoa(pid) + "/"
	d := &callerDirs{root: -1, cwd: -1}
	var err error
	if d.root, err = unix.Open(base+"root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
		return nil, &os.PathError{Op: "open", Path: base + "root", Err: err}
	}
	if d.cwd, err = unix.Open(base+"cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
		d.close()
		return nil, &os.PathError{Op: "open", Path: base + "cwd", Err: err}
	}
	var theirs, ours unix.Stat_t
	if unix.Fstat(d.root, &theirs) == nil && unix.Stat("/", &ours) == nil {
		d.sameRoot = theirs.Dev == ours.Dev && theirs.Ino == ours.Ino
	}
	return d, nil
}

func (d *callerDirs) close() {
	for _, fd := range []int{d.root, d.cwd} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// start is where a lookup of name begins, with the openat2 resolve
// flags that make it the caller's (see enter).
func (d *callerDirs) start(name string) (int, uint64) {
	switch {
	case strings.HasPrefix(name, "/") && d.sameRoot:
		return unix.AT_FDCWD, 0
	case strings.HasPrefix(name, "/"):
		return d.root, unix.RESOLVE_IN_ROOT
	case !d.sameRoot:
		return d.cwd, unix.RESOLVE_BENEATH
	}
	return d.cwd, 0
}

// reach opens the socket name leads to as the caller would reach it
// (with the thread's credentials, the caller's by now; a symlink
// followed in the caller's root) and returns the descriptor, an
// address that leads to exactly that inode (/proc/self/fd/N: the
// kernel follows the link to the open file, so renaming or swapping a
// symlink after the decision changes nothing) and the socket's name as
// this process sees it, where symlinks led and not the name given.
func (d *callerDirs) reach(name string) (fd int, raw []byte, abs string, errno unix.Errno) {
	start, resolve := d.start(name)
	fd, err := kernel.Openat2(start, name, unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		return -1, nil, "", errnoOf(err)
	}
	link := "/proc/self/fd/" + strconv.Itoa(fd)
	where, err := os.Readlink(link)
	if err != nil {
		return fd, nil, "", errnoOf(err)
	}
	return fd, unixSockaddr(link), where, 0
}

// enter, for a bind (which creates the last component, so there is
// nothing to open), opens the directory of name as the caller would
// reach it (with the thread's credentials, which are the caller's by
// now), makes it the thread's cwd, and returns the address of the last
// component relative to it, with the absolute name it reached (the directory's
// name as this process sees it). The socket itself is then looked up
// by the kernel in that directory: a sun_path never needs more room
// than the caller's own. Outside the same root, a relative name is
// looked up beneath the caller's cwd only (RESOLVE_BENEATH: ".." or
// an absolute symlink out of it is refused, EXDEV) rather than
// through the supervisor's root.
func (d *callerDirs) enter(name string) (raw []byte, abs string, errno unix.Errno) {
	dir, last := path.Split(name)
	if last == "" {
		last = "."
	}
	start, resolve := d.start(name)
	if dir == "" {
		dir = "."
	}
	fd, err := kernel.Openat2(start, dir, unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		return nil, "", errnoOf(err)
	}
	defer unix.Close(fd)
	if err := unix.Fchdir(fd); err != nil {
		return nil, "", errnoOf(err)
	}
	where, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return nil, "", errnoOf(err)
	}
	return unixSockaddr(last), path.Join(where, last), 0
}
