package fileproxy

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// openFlagsKnown are the flags open and openat act on; they ignore
// others, which openat2 would refuse.
const openFlagsKnown = unix.O_ACCMODE | unix.O_CREAT | unix.O_EXCL | unix.O_NOCTTY | unix.O_TRUNC |
	unix.O_APPEND | unix.O_NONBLOCK | unix.O_DSYNC | unix.O_ASYNC | unix.O_DIRECT | unix.O_LARGEFILE |
	unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NOATIME | unix.O_CLOEXEC | unix.O_SYNC | unix.O_PATH | unix.O_TMPFILE

// oPathFlags are the flags that count with O_PATH; open drops the rest.
const oPathFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// openRequest is an open call's arguments, read once.
type openRequest struct {
	dirfd   int
	path    string
	flags   int
	mode    uint32
	resolve uint64
}

func (h *held) dispatch() (outcome, error) {
	a := h.notif.Data.Args
	var req openRequest
	var e unix.Errno
	switch h.name {
	case "open":
		req = openRequest{dirfd: unix.AT_FDCWD, flags: int(int32(a[1])), mode: uint32(a[2])}
		req.path, e = h.readPath(a[0])
	case "creat":
		req = openRequest{dirfd: unix.AT_FDCWD, flags: unix.O_CREAT | unix.O_WRONLY | unix.O_TRUNC, mode: uint32(a[1])}
		req.path, e = h.readPath(a[0])
	case "openat":
		req = openRequest{dirfd: dirfdArg(a[0]), flags: int(int32(a[2])), mode: uint32(a[3])}
		req.path, e = h.readPath(a[1])
	case "openat2":
		req, e = h.readOpenat2(a)
	default:
		return h.pathCall()
	}
	if e != 0 {
		return fail(e), nil
	}
	if h.name != "openat2" {
		req.flags &= openFlagsKnown
		if req.flags&unix.O_PATH != 0 {
			req.flags &= oPathFlags
		}
		req.mode &= 0o7777
	}
	if req.flags&(unix.O_CREAT|unix.O_TMPFILE) == 0 {
		req.mode = 0
	}
	return h.open(req)
}

// readOpenat2 reads openat2's how struct once (flags, mode, resolve), as
// the kernel copies it: a larger struct must be zero past what is known.
func (h *held) readOpenat2(a [6]uint64) (openRequest, unix.Errno) {
	req := openRequest{dirfd: dirfdArg(a[0])}
	size := a[3]
	if size < unix.SizeofOpenHow {
		return req, unix.EINVAL
	}
	if size > 4096 {
		return req, unix.E2BIG
	}
	words, err := kernel.ReadMemBytes(h.c.tid, a[2], int(size))
	if err != nil {
		return req, unix.EFAULT
	}
	for _, b := range words[unix.SizeofOpenHow:] {
		if b != 0 {
			return req, unix.E2BIG
		}
	}
	flags := binary.NativeEndian.Uint64(words[0:])
	mode := binary.NativeEndian.Uint64(words[8:])
	req.resolve = binary.NativeEndian.Uint64(words[16:])
	if flags>>32 != 0 || mode > 0o7777 {
		return req, unix.EINVAL
	}
	req.flags, req.mode = int(flags), uint32(mode)
	var e unix.Errno
	req.path, e = h.readPath(a[1])
	return req, e
}

// open performs an open for the caller. The file is first looked up
// with O_PATH, which touches nothing; decide is asked about the file
// that lookup reached; the open the caller asked for is then made
// through that very descriptor (/proc/self/fd/N), which the kernel
// checks against the file it names. A file that does not exist yet is
// created in its looked-up parent with O_EXCL, so no symlink planted in
// between is followed.
func (h *held) open(req openRequest) (outcome, error) {
	st, e := h.start(req.dirfd, req.path, req.resolve)
	if e != 0 {
		return fail(e), nil
	}
	if !h.valid() {
		return fail(unix.ENOENT), nil
	}
	for range 4 {
		var pre int
		o, err := h.asCaller(func() outcome {
			fd, err := kernel.Openat2(st.dirfd, st.rel, unix.OpenHow{
				Flags:   uint64(unix.O_PATH | unix.O_CLOEXEC | req.flags&(unix.O_NOFOLLOW|unix.O_DIRECTORY)),
				Resolve: st.resolve,
			})
			pre = fd
			return fail(errnoOf(err))
		})
		if err != nil {
			return o, err
		}
		if o.errno == unix.ENOENT && req.flags&unix.O_CREAT != 0 {
			o, err, again := h.create(st, req)
			if again {
				continue
			}
			return o, err
		}
		if o.errno != 0 {
			return o, nil
		}
		return h.reopen(pre, req)
	}
	// Created by someone else each time, or a dangling symlink the
	// create would follow: refused rather than followed out of sight.
	h.accesses = append(h.accesses, Access{Path: req.path, Op: OpWrite, Syscall: h.name, Denied: true})
	return fail(unix.EACCES), nil
}

// reopen decides on the file pre reached and opens it as asked.
func (h *held) reopen(pre int, req openRequest) (outcome, error) {
	path := fdPath(pre)
	if !h.allowed(path, openOps(req.flags)) {
		unix.Close(pre)
		return fail(unix.EACCES), nil
	}
	if h.otherProcess(pre, path) {
		// The supervisor owns the run's user namespace, so the kernel's
		// ptrace check of /proc/PID/environ, mem, maps, fd/... would pass
		// for it where it fails for the caller: the open would read
		// another process's secrets on the caller's behalf.
		h.accesses[len(h.accesses)-1].Denied = true
		unix.Close(pre)
		return fail(unix.EACCES), nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(pre, &st); err != nil {
		unix.Close(pre)
		return fail(unix.ENOENT), nil
	}
	cloexec := req.flags&unix.O_CLOEXEC != 0
	if st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == unix.Mkdev(5, 0) {
		// /dev/tty is whoever opens it's controlling terminal: opened
		// here it would be the supervisor's (the caller's terminal).
		unix.Close(pre)
		return h.openCtty(req.flags, cloexec)
	}
	switch {
	case req.flags&unix.O_PATH != 0:
		unix.Close(pre)
		for i := range h.accesses {
			h.accesses[i].Racy = true
		}
		return outcome{cont: true, fd: -1}, nil
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		// O_NOFOLLOW met a symlink.
		unix.Close(pre)
		return fail(unix.ELOOP), nil
	case req.flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL:
		unix.Close(pre)
		return fail(unix.EEXIST), nil
	}
	// O_NOCTTY: a terminal opened here must not become the supervisor's.
	flags := req.flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW) | unix.O_CLOEXEC | unix.O_NOCTTY
	if st.Mode&unix.S_IFMT == unix.S_IFIFO && flags&unix.O_NONBLOCK == 0 && flags&unix.O_ACCMODE != unix.O_RDWR {
		return h.openFIFO(pre, flags, cloexec)
	}
	defer unix.Close(pre)
	return h.asCaller(func() outcome {
		fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pre), flags, req.mode)
		if err != nil {
			return fail(errnoOf(err))
		}
		return outcome{fd: fd, cloexec: cloexec}
	})
}

// create makes a file that did not exist when looked up. again: it
// exists now (or is a dangling symlink); look it up afresh.
func (h *held) create(st start, req openRequest) (o outcome, err error, again bool) {
	dir, base, dirOnly := split(st.rel)
	if dirOnly || base == "." || base == ".." {
		return fail(unix.EISDIR), nil, false
	}
	var pdir int
	o, err = h.asCaller(func() outcome {
		fd, err := kernel.Openat2(st.dirfd, dir, unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: st.resolve})
		pdir = fd
		return fail(errnoOf(err))
	})
	if err != nil || o.errno != 0 {
		return o, err, false
	}
	defer unix.Close(pdir)
	if !h.allowed(join(fdPath(pdir), base), openOps(req.flags)) {
		return fail(unix.EACCES), nil, false
	}
	cloexec := req.flags&unix.O_CLOEXEC != 0
	o, err = h.asCaller(func() outcome {
		fd, err := kernel.Openat2(pdir, base, unix.OpenHow{
			Flags:   uint64(req.flags&^unix.O_NOFOLLOW | unix.O_EXCL | unix.O_CLOEXEC | unix.O_NOCTTY),
			Mode:    uint64(req.mode),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != nil {
			return fail(errnoOf(err))
		}
		return outcome{fd: fd, cloexec: cloexec}
	})
	if o.errno == unix.EEXIST && req.flags&unix.O_EXCL == 0 {
		return o, err, true
	}
	return o, err, false
}

// allowed asks decide about every op on path; all must be allowed. A
// path in the supervisor's own /proc entry is refused outright.
func (h *held) allowed(path string, ops []Op) bool {
	ok := path != ""
	for _, op := range ops {
		if !h.check(path, op) {
			ok = false
		}
	}
	if h.supervisorProc(path) {
		h.accesses[len(h.accesses)-1].Denied = true
		return false
	}
	return ok
}

func join(dir, base string) string {
	if dir == "/" {
		return "/" + base
	}
	return dir + "/" + base
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	var errno unix.Errno
	if asErrno(err, &errno) {
		return errno
	}
	return unix.EIO
}

// openCtty opens the caller's controlling terminal, as /dev/tty opened by
// the caller would: ENXIO when it has none (a run's agent starts in a
// session of its own), its pseudo-terminal when it has one (--tty).
func (h *held) openCtty(flags int, cloexec bool) (outcome, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(h.c.tid) + "/stat")
	if err != nil {
		return fail(unix.ENXIO), nil
	}
	// pid (comm) state ppid pgrp session tty_nr ...: comm may hold spaces.
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return fail(unix.ENXIO), nil
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 5 {
		return fail(unix.ENXIO), nil
	}
	nr, err := strconv.ParseUint(f[4], 10, 32)
	if err != nil || nr == 0 {
		return fail(unix.ENXIO), nil
	}
	major, minor := unix.Major(nr), unix.Minor(nr)
	if major < 136 || major > 143 {
		return fail(unix.ENXIO), nil // not a pseudo-terminal: not served
	}
	path := "/dev/pts/" + strconv.FormatUint(uint64((major-136)*256+minor), 10)
	flags = flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW) | unix.O_CLOEXEC | unix.O_NOCTTY
	return h.asCaller(func() outcome {
		fd, err := unix.Open(path, flags, 0)
		if err != nil {
			return fail(errnoOf(err))
		}
		return outcome{fd: fd, cloexec: cloexec}
	})
}
