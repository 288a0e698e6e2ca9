package fileproxy

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

func asErrno(err error, errno *unix.Errno) bool { return errors.As(err, errno) }

// ref is one file a path call names: looked up to its parent (for a
// name being made, removed or renamed) or to the file itself.
type ref struct {
	fd   int // O_PATH: the parent directory, or the file
	base string
	path string // absolute, for decide
}

// pathArg reads a path argument and says where its lookup starts.
func (h *held) pathArg(dirfd int, addr uint64) (start, string, unix.Errno) {
	p, e := h.readPath(addr)
	if e != 0 {
		return start{}, "", e
	}
	st, e := h.start(dirfd, p, 0)
	return st, p, e
}

// parent looks up the directory a name is made or removed in.
func (h *held) parent(st start) (ref, unix.Errno, error) {
	dir, base, _ := split(st.rel)
	var r ref
	o, err := h.asCaller(func() outcome {
		fd, err := kernel.Openat2(st.dirfd, dir, unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: st.resolve})
		r.fd = fd
		return fail(errnoOf(err))
	})
	if err != nil || o.errno != 0 {
		return ref{}, o.errno, err
	}
	h.keep(r.fd)
	r.base = base
	r.path = join(fdPath(r.fd), base)
	return r, 0, nil
}

// target looks up the file itself (following a final symlink or not).
func (h *held) target(st start, follow bool) (ref, unix.Errno, error) {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	var r ref
	o, err := h.asCaller(func() outcome {
		fd, err := kernel.Openat2(st.dirfd, st.rel, unix.OpenHow{Flags: uint64(flags), Resolve: st.resolve})
		r.fd = fd
		return fail(errnoOf(err))
	})
	if err != nil || o.errno != 0 {
		return ref{}, o.errno, err
	}
	h.keep(r.fd)
	r.path = fdPath(r.fd)
	return r, 0, nil
}

// magic is the path through this process's /proc/self/fd that reaches
// the file behind fd, for calls that take no descriptor.
func magic(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// pathCall serves the calls that take paths and return no descriptor:
// each argument is read once and looked up as the caller would; decide
// is asked about what the lookups reached; the call is made on those
// lookups (the parent directory and final name, or the file through its
// descriptor).
func (h *held) pathCall() (outcome, error) {
	a := h.notif.Data.Args
	switch h.name {
	case "unlink":
		return h.remove(unix.AT_FDCWD, a[0], 0)
	case "unlinkat":
		return h.remove(dirfdArg(a[0]), a[1], int(a[2])&unix.AT_REMOVEDIR)
	case "rmdir":
		return h.remove(unix.AT_FDCWD, a[0], unix.AT_REMOVEDIR)
	case "mkdir":
		return h.mkdir(unix.AT_FDCWD, a[0], uint32(a[1]))
	case "mkdirat":
		return h.mkdir(dirfdArg(a[0]), a[1], uint32(a[2]))
	case "rename":
		return h.rename(unix.AT_FDCWD, a[0], unix.AT_FDCWD, a[1], 0)
	case "renameat":
		return h.rename(dirfdArg(a[0]), a[1], dirfdArg(a[2]), a[3], 0)
	case "renameat2":
		return h.rename(dirfdArg(a[0]), a[1], dirfdArg(a[2]), a[3], uint(a[4]))
	case "link":
		return h.link(unix.AT_FDCWD, a[0], unix.AT_FDCWD, a[1], 0)
	case "linkat":
		return h.link(dirfdArg(a[0]), a[1], dirfdArg(a[2]), a[3], int(a[4]))
	case "symlink":
		return h.symlink(a[0], unix.AT_FDCWD, a[1])
	case "symlinkat":
		return h.symlink(a[0], dirfdArg(a[1]), a[2])
	}
	return h.attrCall()
}

// onParent looks up the directory of a name one call makes or removes,
// asks decide about op on that name, and runs act on the lookup.
func (h *held) onParent(dirfd int, addr uint64, op Op, act func(r ref) error) (outcome, error) {
	st, _, e := h.pathArg(dirfd, addr)
	if e != 0 {
		return fail(e), nil
	}
	r, e, err := h.parent(st)
	if e != 0 || err != nil || !h.valid() {
		return fail(e), err
	}
	if !h.allowed(r.path, []Op{op}) {
		return fail(unix.EACCES), nil
	}
	return h.asCaller(func() outcome { return result(act(r)) })
}

func (h *held) remove(dirfd int, addr uint64, flags int) (outcome, error) {
	return h.onParent(dirfd, addr, OpDelete, func(r ref) error { return unix.Unlinkat(r.fd, r.base, flags) })
}

func (h *held) mkdir(dirfd int, addr uint64, mode uint32) (outcome, error) {
	return h.onParent(dirfd, addr, OpWrite, func(r ref) error { return unix.Mkdirat(r.fd, r.base, mode&0o7777) })
}

// rename is a delete of the old name and a write of the new one (an
// exchange writes both).
func (h *held) rename(olddirfd int, oldAddr uint64, newdirfd int, newAddr uint64, flags uint) (outcome, error) {
	oldSt, _, e := h.pathArg(olddirfd, oldAddr)
	if e != 0 {
		return fail(e), nil
	}
	newSt, _, e := h.pathArg(newdirfd, newAddr)
	if e != 0 {
		return fail(e), nil
	}
	from, e, err := h.parent(oldSt)
	if e != 0 || err != nil {
		return fail(e), err
	}
	to, e, err := h.parent(newSt)
	if e != 0 || err != nil || !h.valid() {
		return fail(e), err
	}
	fromOps := []Op{OpDelete}
	if flags&unix.RENAME_EXCHANGE != 0 {
		fromOps = append(fromOps, OpWrite)
	}
	okFrom := h.allowed(from.path, fromOps)
	okTo := h.allowed(to.path, []Op{OpWrite})
	if !okFrom || !okTo {
		return fail(unix.EACCES), nil
	}
	return h.asCaller(func() outcome { return result(unix.Renameat2(from.fd, from.base, to.fd, to.base, flags)) })
}

// link reads the file it links to and writes the new name.
func (h *held) link(olddirfd int, oldAddr uint64, newdirfd int, newAddr uint64, flags int) (outcome, error) {
	oldPath, e := h.readPath(oldAddr)
	if e != 0 {
		return fail(e), nil
	}
	var src ref
	var err error
	if oldPath == "" && flags&unix.AT_EMPTY_PATH != 0 {
		// The descriptor itself, which the caller already holds.
		src.fd, e = h.dir(olddirfd)
		src.path = fdPath(src.fd)
	} else {
		var st start
		if st, e = h.start(olddirfd, oldPath, 0); e == 0 {
			src, e, err = h.target(st, flags&unix.AT_SYMLINK_FOLLOW != 0)
		}
	}
	if e != 0 || err != nil {
		return fail(e), err
	}
	newSt, _, e := h.pathArg(newdirfd, newAddr)
	if e != 0 {
		return fail(e), nil
	}
	to, e, err := h.parent(newSt)
	if e != 0 || err != nil || !h.valid() {
		return fail(e), err
	}
	okFrom := h.allowed(src.path, []Op{OpRead})
	okTo := h.allowed(to.path, []Op{OpWrite})
	if !okFrom || !okTo {
		return fail(unix.EACCES), nil
	}
	// Through the descriptor: the kernel links the file the lookup
	// reached, with its own checks (protected_hardlinks) as the caller.
	return h.asCaller(func() outcome {
		return result(unix.Linkat(unix.AT_FDCWD, magic(src.fd), to.fd, to.base, unix.AT_SYMLINK_FOLLOW))
	})
}

// symlink writes the new name; its target is text the kernel does not
// resolve now, so it is not a file this call touches.
func (h *held) symlink(targetAddr uint64, newdirfd int, newAddr uint64) (outcome, error) {
	target, e := h.readPath(targetAddr)
	if e != 0 {
		return fail(e), nil
	}
	return h.onParent(newdirfd, newAddr, OpWrite, func(r ref) error { return unix.Symlinkat(target, r.fd, r.base) })
}

func result(err error) outcome {
	if err != nil {
		return fail(errnoOf(err))
	}
	return value(0)
}
