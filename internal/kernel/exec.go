package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path"
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
	// Fresh: SHA256 was read from the file, not a cache (SumFresh).
	Fresh bool
	// Interp is the ELF program interpreter an exec of the file opens
	// for execution too (ld.so; see ELFInterpreter): "" for a static
	// program, a script, or a file sysgate could not read.
	Interp string
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

// ExecTarget is where an exec looks for its file in the view of thread
// tid (of thread group tgid): execve's name (dirfd AT_FDCWD), or
// execveat's dirfd, name and AT_EMPTY_PATH. A name through the caller's
// own /proc entry (see CallerProcPath) is that entry seen from here.
func ExecTarget(tid, tgid, dirfd int, name string, emptyPath bool) string {
	proc := "/proc/" + strconv.Itoa(tid)
	if p, ok := CallerProcPath(tid, tgid, name); ok {
		return p
	}
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

// callerProcPrefixes are the absolute names that mean the process that
// looks them up: opened from sysgate they would name sysgate (or
// nothing), while the kernel opens them as the caller. /dev/fd and
// /dev/std* are the usual symlinks into /proc/self/fd.
var callerProcPrefixes = []struct {
	parts  []string
	target func(tid, tgid string) string
}{
	{[]string{"proc", "self"}, func(_, tgid string) string { return "/proc/" + tgid }},
	{[]string{"proc", "thread-self"}, func(tid, tgid string) string { return "/proc/" + tgid + "/task/" + tid }},
	{[]string{"dev", "fd"}, func(_, tgid string) string { return "/proc/" + tgid + "/fd" }},
	{[]string{"dev", "stdin"}, func(_, tgid string) string { return "/proc/" + tgid + "/fd/0" }},
	{[]string{"dev", "stdout"}, func(_, tgid string) string { return "/proc/" + tgid + "/fd/1" }},
	{[]string{"dev", "stderr"}, func(_, tgid string) string { return "/proc/" + tgid + "/fd/2" }},
}

// CallerProcPath rewrites an absolute name that starts in the caller's
// own /proc entry (/proc/self, /proc/thread-self, /dev/fd, /dev/stdin...)
// to that entry in sysgate's /proc, for thread tid of thread group tgid;
// ok is false for any other name. Only the leading components are
// replaced, so what follows resolves as the kernel resolves it for the
// caller. A symlink elsewhere on the path that leads into /proc/self is
// not seen here: that is left to the check after the exec.
func CallerProcPath(tid, tgid int, name string) (string, bool) {
	if !strings.HasPrefix(name, "/") {
		return "", false
	}
	// The kernel skips empty and "." components; ".." after the prefix is
	// kept in the rest, where it resolves as it would for the caller.
	parts := strings.Split(name, "/")
	var lead []int // indexes of the first components that are names
	for i, c := range parts {
		if c == "" || c == "." {
			continue
		}
		lead = append(lead, i)
		if len(lead) == 2 {
			break
		}
	}
	for _, p := range callerProcPrefixes {
		if len(lead) < 2 || parts[lead[0]] != p.parts[0] || parts[lead[1]] != p.parts[1] {
			continue
		}
		out := p.target(strconv.Itoa(tid), strconv.Itoa(tgid))
		if rest := strings.Join(parts[lead[1]+1:], "/"); rest != "" {
			out += "/" + rest
		}
		return out, true
	}
	return "", false
}

// ErrMagicLink: a path reaches a /proc magic link (a descriptor, a
// process's root, cwd or exe) through a symlink. Followed from sysgate,
// "/proc/self" in it is sysgate; the kernel follows it as the caller.
var ErrMagicLink = errors.New("the path reaches a /proc magic link through a symlink, which sysgate cannot follow as the caller")

// ResolveExecFile opens target (see ExecTarget) as the kernel would, and
// names and identifies the file it reaches. Absolute symlinks on the way
// resolve in sysgate's root, which is the agent's unless it changed root.
// Only the magic links at the start of target (the caller's root, cwd or
// descriptor, which ExecTarget put there) are followed: one met later
// came from a symlink and fails with ErrMagicLink.
func ResolveExecFile(target string) (ExecFile, error) {
	return ResolveExecFileSum(target, nil, nil)
}

// ResolveExecFileSum is ResolveExecFile that also hashes a regular file
// through the same descriptor (sums nil: it does not), so the content
// is the file's that the path reached, not whatever the path names later.
//
// want, when not nil, says which files are worth hashing (by the path
// reached), and which the cache may answer for: hashing a big program
// nobody pins costs a read of all of it. Nil hashes every file fresh.
func ResolveExecFileSum(target string, sums *ContentCache, want func(path string) Sum) (ExecFile, error) {
	fd, err := openExecTarget(target)
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
			if n > 0 {
				f.Head = head[:n]
			}
			f.Interp, _ = ELFInterpreter(preader(rfd))
			unix.Close(rfd)
		}
		how := SumFresh
		if want != nil {
			how = want(f.Path)
		}
		if sums != nil && how != SumSkip {
			f.SHA256, f.SumErr = sums.sum(fd, &st, how)
			f.Fresh = how == SumFresh
		}
	}
	return f, nil
}

// preader reads a descriptor at offsets (pread), leaving its position.
type preader int

func (fd preader) ReadAt(p []byte, off int64) (int, error) {
	var n int
	for n < len(p) {
		m, err := unix.Pread(int(fd), p[n:], off+int64(n))
		if err != nil {
			return n, os.NewSyscallError("pread", err)
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// openExecTarget opens target O_PATH: its leading /proc magic links
// plainly, the rest with RESOLVE_NO_MAGICLINKS.
func openExecTarget(target string) (int, error) {
	base, rest := splitMagic(target)
	bfd, err := unix.Open(base, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil || rest == "" {
		return bfd, err
	}
	defer unix.Close(bfd)
	if symlinkIntoProc(bfd, rest, 0) {
		return -1, ErrMagicLink
	}
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(bfd, rest, how)
	if errors.Is(err, unix.ELOOP) {
		// ELOOP is also too many symlinks, or a symlink as the last
		// component of a path opened without following: a plain open
		// that does not fail so tells a magic link.
		if pfd, perr := unix.Openat(bfd, rest, unix.O_PATH|unix.O_CLOEXEC, 0); perr == nil {
			unix.Close(pfd)
			return -1, ErrMagicLink
		} else if !errors.Is(perr, unix.ELOOP) {
			return -1, ErrMagicLink
		}
	}
	return fd, err
}

// maxSymlinks is the kernel's limit of symlinks in one lookup.
const maxSymlinks = 40

// symlinkIntoProc reports whether a symlink on the way from dirfd to
// rest leads into /proc or /dev/fd (as "/dev/fd" -> "/proc/self/fd"
// does): followed from sysgate, /proc/self there is sysgate, and a
// descriptor the caller has and sysgate lacks looks missing rather than
// magic, which RESOLVE_NO_MAGICLINKS alone cannot tell. Relative targets
// are followed as the path they make; ".." in them is taken lexically,
// which may differ from the kernel only on paths no agent needs.
func symlinkIntoProc(dirfd int, rest string, depth int) bool {
	if depth > maxSymlinks {
		return false // the exec fails with ELOOP
	}
	parts := strings.Split(rest, "/")
	for i := range parts {
		if parts[i] == "" || parts[i] == "." || parts[i] == ".." {
			continue
		}
		prefix := strings.Join(parts[:i+1], "/")
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, prefix, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return false // the lookup fails here, as the exec will
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			continue
		}
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(dirfd, prefix, buf)
		if err != nil {
			return false
		}
		target, after := string(buf[:n]), strings.Join(parts[i+1:], "/")
		if strings.HasPrefix(target, "/") {
			abs := path.Clean(target + "/" + after)
			if _, ok := CallerProcPath(0, 0, abs); ok || abs == "/proc" || strings.HasPrefix(abs, "/proc/") {
				return true
			}
			root, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
			if err != nil {
				return false
			}
			defer unix.Close(root)
			return symlinkIntoProc(root, strings.TrimPrefix(abs, "/"), depth+1)
		}
		next := strings.TrimLeft(strings.Join(parts[:i], "/")+"/"+target+"/"+after, "/")
		return symlinkIntoProc(dirfd, next, depth+1)
	}
	return false
}

// splitMagic splits target where its leading /proc magic links end:
// "/proc/N[/task/M]/" then root, cwd, exe, or fd/K or map_files/K. Any
// other target starts at "/".
func splitMagic(target string) (base, rest string) {
	parts := strings.Split(strings.TrimPrefix(target, "/"), "/")
	if len(parts) < 2 || parts[0] != "proc" || !isNumber(parts[1]) {
		return "/", strings.TrimPrefix(target, "/")
	}
	i := 2
	if len(parts) >= 4 && parts[2] == "task" && isNumber(parts[3]) {
		i = 4
	}
	switch {
	case i < len(parts) && (parts[i] == "root" || parts[i] == "cwd" || parts[i] == "exe"):
		i++
	case i+1 < len(parts) && (parts[i] == "fd" || parts[i] == "map_files"):
		i += 2
	}
	return "/" + strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/")
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
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
