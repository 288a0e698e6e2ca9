package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FileID names a file by device and inode: what two paths share when
// they open the same file.
type FileID struct{ Dev, Ino uint64 }

// ExecFile is a file an exec names, resolved in the caller's view of the
// filesystem (its root, working directory and descriptors).
type ExecFile struct {
	// Path is the file's absolute path with symlinks resolved, or
	// "memfd:NAME" for a memory file.
	Path    string
	ID      FileID
	Regular bool
	// Head is the start of the file (up to HeadSize bytes) when sysgate
	// could read it: a "#!" line names an interpreter.
	Head []byte
	// SHA256 is the content's hash (lowercase hex) when a ContentCache
	// was given and the file could be read; SumErr says why not.
	SHA256 string
	SumErr error
}

// HeadSize is how much of an exec'd file ResolveExecFile reads: the
// kernel reads a "#!" line of up to 256 bytes.
const HeadSize = 256

// ReadMemString reads the NUL-terminated string at addr in process pid's
// memory, at most max bytes; truncated says it went on past max.
// It needs ptrace access to pid (CAP_SYS_PTRACE, or the same user and a
// dumpable process).
func ReadMemString(pid int, addr uint64, max int) (s string, truncated bool, err error) {
	if addr == 0 {
		return "", false, os.NewSyscallError("process_vm_readv", unix.EFAULT)
	}
	page := uint64(os.Getpagesize())
	var out []byte
	for len(out) < max+1 {
		// One page at a time: a string may end just before an unmapped
		// page, which a longer read would fail on.
		n := int(page - addr%page)
		if n > max+1-len(out) {
			n = max + 1 - len(out)
		}
		buf := make([]byte, n)
		got, err := readMem(pid, addr, buf)
		if err != nil {
			return "", false, err
		}
		if i := bytes.IndexByte(buf[:got], 0); i >= 0 {
			return string(append(out, buf[:i]...)), false, nil
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return string(out[:max]), true, nil
}

// ReadMemWords reads n words of size bytes (4 or 8, the caller's ABI) at
// addr in pid's memory, stopping at the first zero word.
func ReadMemWords(pid int, addr uint64, n, size int) ([]uint64, error) {
	buf := make([]byte, n*size)
	got, err := readMem(pid, addr, buf)
	if err != nil && got == 0 {
		return nil, err
	}
	var words []uint64
	for off := 0; off+size <= got; off += size {
		var w uint64
		if size == 4 {
			w = uint64(binary.NativeEndian.Uint32(buf[off:]))
		} else {
			w = binary.NativeEndian.Uint64(buf[off:])
		}
		if w == 0 {
			break
		}
		words = append(words, w)
	}
	return words, nil
}

func readMem(pid int, addr uint64, buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil {
		return 0, os.NewSyscallError("process_vm_readv", err)
	}
	return n, nil
}

// ExecTarget is where an exec looks for its file in thread tid's view:
// execve's name (dirfd AT_FDCWD), or execveat's dirfd, name and
// AT_EMPTY_PATH.
func ExecTarget(tid, dirfd int, name string, emptyPath bool) string {
	proc := "/proc/" + strconv.Itoa(tid)
	switch {
	case emptyPath && name == "":
		return proc + "/fd/" + strconv.Itoa(dirfd)
	case strings.HasPrefix(name, "/"):
		return proc + "/root" + name
	case dirfd == unix.AT_FDCWD:
		return proc + "/cwd/" + name
	}
	return proc + "/fd/" + strconv.Itoa(dirfd) + "/" + name
}

// ResolveExecFile opens target (see ExecTarget) as the kernel would, and
// names and identifies the file it reaches. Absolute symlinks on the way
// resolve in sysgate's root, which is the agent's unless it changed root.
func ResolveExecFile(target string) (ExecFile, error) {
	return ResolveExecFileSum(target, nil)
}

// ResolveExecFileSum is ResolveExecFile that also hashes a regular file
// through the same descriptor (sums nil: it does not), so the content
// is the file's that the path reached, not whatever the path names later.
func ResolveExecFileSum(target string, sums *ContentCache) (ExecFile, error) {
	fd, err := unix.Open(target, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return ExecFile{}, &os.PathError{Op: "open", Path: target, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return ExecFile{}, os.NewSyscallError("fstat", err)
	}
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	path, err := os.Readlink(self)
	if err != nil {
		return ExecFile{}, err
	}
	f := ExecFile{Path: programPath(path), ID: FileID{uint64(st.Dev), st.Ino}, Regular: st.Mode&unix.S_IFMT == unix.S_IFREG}
	if f.Regular {
		if rfd, err := unix.Open(self, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0); err == nil {
			head := make([]byte, HeadSize)
			n, _ := unix.Pread(rfd, head, 0)
			unix.Close(rfd)
			if n > 0 {
				f.Head = head[:n]
			}
		}
		if sums != nil {
			f.SHA256, f.SumErr = sums.sum(fd, &st)
		}
	}
	return f, nil
}

// programPath turns a descriptor's or exe link's text into a program
// path: "/memfd:NAME (deleted)" is "memfd:NAME"; a deleted file keeps its
// path without the suffix.
func programPath(link string) string {
	link = strings.TrimSuffix(link, " (deleted)")
	if name, ok := strings.CutPrefix(link, "/memfd:"); ok {
		return "memfd:" + name
	}
	return link
}

// ExeID identifies process pid's executable file (one stat: for a caller
// whose exe path is already known).
func ExeID(pid int) (FileID, error) {
	link := "/proc/" + strconv.Itoa(pid) + "/exe"
	var st unix.Stat_t
	if err := unix.Stat(link, &st); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: link, Err: err}
	}
	return FileID{uint64(st.Dev), st.Ino}, nil
}

// ReadExe identifies process pid's executable: its file and path.
func ReadExe(pid int) (FileID, string, error) {
	id, err := ExeID(pid)
	if err != nil {
		return FileID{}, "", err
	}
	path, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return FileID{}, "", err
	}
	return id, programPath(path), nil
}

// ProgramPath is the program path of an exe link's text, as ReadExe and
// ResolveExecFile give it (audit records' exe field reads the same).
func ProgramPath(link string) string { return programPath(link) }

// Alive reports whether the process behind pidfd has not exited.
func Alive(pidfd int) bool {
	err := PidfdSignal(pidfd, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
