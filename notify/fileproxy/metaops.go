package fileproxy

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// The kernel's limits on an extended attribute's name and value.
const (
	xattrNameMax = 255
	xattrSizeMax = 65536
)

// changeThrough takes over the caller's descriptor n, asks decide about
// writing the file it is open on (whatever its access mode: fchmod
// works on a descriptor opened read-only), and runs act on it with the
// caller's credentials.
func (h *held) changeThrough(n uint64, act func(fd int) outcome) (outcome, error) {
	fd := dirfdArg(n)
	if fd < 0 {
		return fail(unix.EBADF), nil
	}
	fd, e := h.takeFD(fd)
	if e != 0 || !h.valid() {
		return fail(e), nil
	}
	if !h.allowed(fdPath(fd), []Op{OpWrite}) {
		return fail(unix.EACCES), nil
	}
	return h.asCaller(func() outcome { return act(fd) })
}

// xattrName reads an attribute's name as the kernel does: ERANGE past
// its limit.
func (h *held) xattrName(addr uint64) (string, unix.Errno) {
	s, long, err := kernel.ReadMemString(h.c.tid, addr, xattrNameMax+1)
	switch {
	case err != nil:
		return "", unix.EFAULT
	case long || s == "" || len(s) > xattrNameMax:
		return "", unix.ERANGE
	}
	return s, 0
}

func (h *held) setxattr(a [6]uint64) (outcome, error) {
	name, e := h.xattrName(a[1])
	if e != 0 {
		return fail(e), nil
	}
	size := a[3]
	if size > xattrSizeMax {
		return fail(unix.E2BIG), nil
	}
	var value []byte
	if size > 0 {
		var err error
		if value, err = kernel.ReadMemBytes(h.c.tid, a[2], int(size)); err != nil {
			return fail(unix.EFAULT), nil
		}
	}
	flags := int(a[4])
	switch h.name {
	case "fsetxattr":
		return h.changeThrough(a[0], func(fd int) outcome { return result(unix.Fsetxattr(fd, name, value, flags)) })
	case "lsetxattr":
		return h.changeInPlace(unix.AT_FDCWD, a[0], unix.AT_SYMLINK_NOFOLLOW, func(r ref) outcome {
			return result(unix.Setxattr(magic(r.fd), name, value, flags))
		})
	}
	return h.changeInPlace(unix.AT_FDCWD, a[0], 0, func(r ref) outcome { return result(unix.Setxattr(magic(r.fd), name, value, flags)) })
}

func (h *held) removexattr(a [6]uint64) (outcome, error) {
	name, e := h.xattrName(a[1])
	if e != 0 {
		return fail(e), nil
	}
	switch h.name {
	case "fremovexattr":
		return h.changeThrough(a[0], func(fd int) outcome { return result(unix.Fremovexattr(fd, name)) })
	case "lremovexattr":
		return h.changeInPlace(unix.AT_FDCWD, a[0], unix.AT_SYMLINK_NOFOLLOW, func(r ref) outcome { return result(unix.Removexattr(magic(r.fd), name)) })
	}
	return h.changeInPlace(unix.AT_FDCWD, a[0], 0, func(r ref) outcome { return result(unix.Removexattr(magic(r.fd), name)) })
}

// utimensat changes times by name, or with a NULL name through the
// descriptor (futimens). The times are read once and handed to the
// kernel as the caller gave them (UTIME_NOW and UTIME_OMIT included),
// so it checks them and the caller's right to set them.
func (h *held) utimensat(dirfd int, pathAddr, timesAddr uint64, flags int) (outcome, error) {
	if flags&^(unix.AT_SYMLINK_NOFOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return fail(unix.EINVAL), nil
	}
	var ts *[2]unix.Timespec
	if timesAddr != 0 {
		ts = new([2]unix.Timespec)
		if !h.readStruct(timesAddr, ts) {
			return fail(unix.EFAULT), nil
		}
	}
	if pathAddr == 0 {
		return h.timesThrough(dirfd, ts, flags)
	}
	return h.changeInPlace(dirfd, pathAddr, flags, func(r ref) outcome { return setTimes(unix.AT_FDCWD, magic(r.fd), ts, 0) })
}

// utimes and futimesat take microseconds, utime whole seconds: each is
// utimensat with its times converted (the kernel does the same).
func (h *held) utimes(dirfd int, pathAddr, tvAddr uint64) (outcome, error) {
	var ts *[2]unix.Timespec
	if tvAddr != 0 {
		var tv [2]unix.Timeval
		if !h.readStruct(tvAddr, &tv) {
			return fail(unix.EFAULT), nil
		}
		ts = &[2]unix.Timespec{}
		for i := range tv {
			if tv[i].Usec < 0 || tv[i].Usec >= 1000000 {
				return fail(unix.EINVAL), nil
			}
			ts[i] = unix.Timespec{Sec: tv[i].Sec, Nsec: int64(tv[i].Usec) * 1000}
		}
	}
	if pathAddr == 0 {
		return h.timesThrough(dirfd, ts, 0)
	}
	return h.changeInPlace(dirfd, pathAddr, 0, func(r ref) outcome { return setTimes(unix.AT_FDCWD, magic(r.fd), ts, 0) })
}

func (h *held) utime(pathAddr, bufAddr uint64) (outcome, error) {
	var ts *[2]unix.Timespec
	if bufAddr != 0 {
		var u unix.Utimbuf
		if !h.readStruct(bufAddr, &u) {
			return fail(unix.EFAULT), nil
		}
		ts = &[2]unix.Timespec{{Sec: u.Actime}, {Sec: u.Modtime}}
	}
	return h.changeInPlace(unix.AT_FDCWD, pathAddr, 0, func(r ref) outcome { return setTimes(unix.AT_FDCWD, magic(r.fd), ts, 0) })
}

// timesThrough is a NULL path: the descriptor's file (futimens); with
// AT_FDCWD the kernel looks the NULL name up, and faults.
func (h *held) timesThrough(dirfd int, ts *[2]unix.Timespec, flags int) (outcome, error) {
	if dirfd == unix.AT_FDCWD {
		return fail(unix.EFAULT), nil
	}
	return h.changeThrough(uint64(uint32(dirfd)), func(fd int) outcome { return setTimes(fd, "", ts, flags) })
}

// readStruct reads a fixed-size struct argument once from the caller's
// memory, in the native layout (the proxy serves the native arch only).
func (h *held) readStruct(addr uint64, v any) bool {
	buf, err := kernel.ReadMemBytes(h.c.tid, addr, binary.Size(v))
	return err == nil && binary.Read(bytes.NewReader(buf), binary.NativeEndian, v) == nil
}

// setTimes is utimensat(2) itself: x/sys/unix takes no NULL path (the
// descriptor) and no NULL times (now).
func setTimes(dirfd int, name string, ts *[2]unix.Timespec, flags int) outcome {
	var p *byte
	if name != "" {
		var err error
		if p, err = unix.BytePtrFromString(name); err != nil {
			return fail(unix.EINVAL)
		}
	}
	_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(ts)), uintptr(flags), 0, 0)
	if errno != 0 {
		return fail(errno)
	}
	return value(0)
}
