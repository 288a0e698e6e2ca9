package fileproxy

import (
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/filecalls"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Op is what a call does to a file.
type Op int

// The operations; the zero value is invalid.
const (
	OpRead Op = iota + 1
	OpWrite
	// OpExec is for mappings of a file as executable; this package never
	// reports it (mmap takes a descriptor, not a path), the audit side may.
	OpExec
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	case OpExec:
		return "exec"
	case OpDelete:
		return "delete"
	}
	return "invalid"
}

// Access is one file a held call touched, as the supervisor resolved it.
type Access struct {
	// Path is absolute, as resolved from the supervisor's view: the file
	// the call reached (after symlinks), or for a file being created,
	// removed or renamed, its resolved parent directory and final name.
	// Empty for open_by_handle_at, which names no path.
	Path string
	Op   Op
	// Syscall is the call's name, e.g. "openat".
	Syscall string
	// Denied: decide refused it (the call failed with EACCES), or the
	// call is one this package always refuses (the file-handle calls).
	Denied bool
	// Racy: an O_PATH open, allowed and then run by the kernel itself,
	// which looks the path up again (SECCOMP_IOCTL_NOTIF_ADDFD takes no
	// O_PATH descriptor): the file it reached may differ from Path. An
	// O_PATH descriptor reads and writes nothing; opening a file through
	// it (/proc/self/fd/N, or as a dirfd) is served here, by the file.
	Racy bool
}

// handledCalls are the calls Serve answers itself: the one table both
// file observers watch (internal/filecalls) but the execs, which the
// notify backend's exec verification holds and reports (with the
// program's path) instead. The file-handle calls are refused with EPERM.
var handledCalls = func() []string {
	var out []string
	for _, name := range filecalls.Names() {
		if filecalls.EffectOf(name) != filecalls.Exec {
			out = append(out, name)
		}
	}
	return out
}()

// Syscalls returns the names of the calls Serve handles that arch has
// (aarch64, for one, has no open, unlink or rename): the filter makes
// these notify. Serve answers them for the native arch only; for a
// compat arch it returns handled=false.
func Syscalls(arch scmp.Arch) []string {
	var out []string
	for _, name := range handledCalls {
		if _, ok := scmp.Number(arch, name); ok {
			out = append(out, name)
		}
	}
	return out
}

// openOps says what an open with flags does to its file: O_PATH and a
// plain read read it; creating, truncating, appending and a write
// access mode write it; O_RDWR does both.
func openOps(flags int) []Op {
	var read, write bool
	switch {
	case flags&unix.O_PATH != 0:
		read = true
	default:
		switch flags & unix.O_ACCMODE {
		case unix.O_RDONLY:
			read = true
		case unix.O_WRONLY:
			write = true
		default:
			read, write = true, true
		}
		if flags&(unix.O_CREAT|unix.O_TRUNC|unix.O_APPEND) != 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE {
			write = true
		}
	}
	var ops []Op
	if read {
		ops = append(ops, OpRead)
	}
	if write {
		ops = append(ops, OpWrite)
	}
	return ops
}
