package fileproxy

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// attrCall serves the calls that change a file in place (length, mode,
// owner, extended attributes, times: writes), by name or through a
// descriptor, and mknod, and refuses the file-handle calls.
func (h *held) attrCall() (outcome, error) {
	a := h.notif.Data.Args
	switch h.name {
	case "chmod":
		return h.chmod(unix.AT_FDCWD, a[0], uint32(a[1]), 0)
	case "fchmodat":
		return h.chmod(dirfdArg(a[0]), a[1], uint32(a[2]), 0)
	case "fchmodat2":
		return h.chmod(dirfdArg(a[0]), a[1], uint32(a[2]), int(a[3]))
	case "chown":
		return h.chown(unix.AT_FDCWD, a[0], int(int32(a[1])), int(int32(a[2])), 0)
	case "lchown":
		return h.chown(unix.AT_FDCWD, a[0], int(int32(a[1])), int(int32(a[2])), unix.AT_SYMLINK_NOFOLLOW)
	case "fchownat":
		return h.chown(dirfdArg(a[0]), a[1], int(int32(a[2])), int(int32(a[3])), int(a[4]))
	case "truncate":
		return h.truncate(a[0], int64(a[1]))
	case "mknod":
		return h.mknod(unix.AT_FDCWD, a[0], uint32(a[1]), uint32(a[2]))
	case "mknodat":
		return h.mknod(dirfdArg(a[0]), a[1], uint32(a[2]), uint32(a[3]))
	case "fchmod":
		return h.changeThrough(a[0], func(fd int) outcome { return result(unix.Fchmod(fd, uint32(a[1])&0o7777)) })
	case "fchown":
		return h.changeThrough(a[0], func(fd int) outcome { return result(unix.Fchown(fd, int(int32(a[1])), int(int32(a[2])))) })
	case "setxattr", "lsetxattr", "fsetxattr":
		return h.setxattr(a)
	case "removexattr", "lremovexattr", "fremovexattr":
		return h.removexattr(a)
	case "utimensat":
		return h.utimensat(dirfdArg(a[0]), a[1], a[2], int(a[3]))
	case "futimesat":
		return h.utimes(dirfdArg(a[0]), a[1], a[2])
	case "utimes":
		return h.utimes(unix.AT_FDCWD, a[0], a[1])
	case "utime":
		return h.utime(a[0], a[1])
	case "name_to_handle_at", "open_by_handle_at":
	default:
		// A call of the table (internal/filecalls) this proxy has no
		// way to perform: refused, never run unchecked.
		return fail(unix.ENOSYS), fmt.Errorf("fileproxy: %s: no way to serve it", h.name)
	}
	// name_to_handle_at and open_by_handle_at: a handle names a file
	// by inode, past every path; refused, and reported as refused.
	path := ""
	if h.name == "name_to_handle_at" {
		path = h.handlePath(dirfdArg(a[0]), a[1], int(a[4]))
	}
	h.accesses = append(h.accesses, Access{Path: path, Op: OpRead, Syscall: h.name, Denied: true})
	return fail(unix.EPERM), nil
}

// inPlace looks up the file a call changes: the dirfd itself for an
// empty path with AT_EMPTY_PATH, else the path (following a final
// symlink unless AT_SYMLINK_NOFOLLOW).
func (h *held) inPlace(dirfd int, addr uint64, flags int) (ref, unix.Errno, error) {
	p, e := h.readPath(addr)
	if e != 0 {
		return ref{}, e, nil
	}
	if p == "" && flags&unix.AT_EMPTY_PATH != 0 {
		fd, e := h.dir(dirfd)
		if e != 0 {
			return ref{}, e, nil
		}
		return ref{fd: fd, path: fdPath(fd)}, 0, nil
	}
	st, e := h.start(dirfd, p, 0)
	if e != 0 {
		return ref{}, e, nil
	}
	return h.target(st, flags&unix.AT_SYMLINK_NOFOLLOW == 0)
}

// changeInPlace looks up the file a call changes (see inPlace), asks
// decide about writing it, and runs act on the lookup.
func (h *held) changeInPlace(dirfd int, addr uint64, flags int, act func(r ref) outcome) (outcome, error) {
	r, e, err := h.inPlace(dirfd, addr, flags)
	if e != 0 || err != nil || !h.valid() {
		return fail(e), err
	}
	if !h.allowed(r.path, []Op{OpWrite}) {
		return fail(unix.EACCES), nil
	}
	return h.asCaller(func() outcome { return act(r) })
}

func (h *held) chmod(dirfd int, addr uint64, mode uint32, flags int) (outcome, error) {
	return h.changeInPlace(dirfd, addr, flags, func(r ref) outcome {
		var st unix.Stat_t
		if unix.Fstat(r.fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return fail(unix.EOPNOTSUPP) // a symlink's mode cannot change
		}
		return result(unix.Fchmodat(unix.AT_FDCWD, magic(r.fd), mode&0o7777, 0))
	})
}

func (h *held) chown(dirfd int, addr uint64, uid, gid, flags int) (outcome, error) {
	return h.changeInPlace(dirfd, addr, flags, func(r ref) outcome {
		return result(unix.Fchownat(r.fd, "", uid, gid, unix.AT_EMPTY_PATH))
	})
}

func (h *held) truncate(addr uint64, length int64) (outcome, error) {
	return h.changeInPlace(unix.AT_FDCWD, addr, 0, func(r ref) outcome {
		return result(unix.Truncate(magic(r.fd), length))
	})
}

// handlePath names the file name_to_handle_at asks about, for the
// report: resolved if it can be, else as the caller wrote it.
func (h *held) handlePath(dirfd int, addr uint64, flags int) string {
	p, e := h.readPath(addr)
	if e != 0 || p == "" {
		return p
	}
	st, e := h.start(dirfd, p, 0)
	if e != 0 {
		return p
	}
	r, e, err := h.target(st, flags&unix.AT_SYMLINK_FOLLOW != 0)
	if e != 0 || err != nil {
		return p
	}
	return r.path
}

// mknod makes a node (a FIFO, a socket, a device) as the caller: a
// write of its new name.
func (h *held) mknod(dirfd int, addr uint64, mode, dev uint32) (outcome, error) {
	return h.onParent(dirfd, addr, OpWrite, func(r ref) error { return unix.Mknodat(r.fd, r.base, mode, int(dev)) })
}
