package touch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// RootOf is the directory a process's absolute names start from while it
// lives (/proc/PID/root: its chroot or mount namespace), else "/": the
// caller's root, right for runs that share it.
func RootOf(pid int) string {
	r := "/proc/" + strconv.Itoa(pid) + "/root"
	if _, err := os.Stat(r); err == nil {
		return r
	}
	return "/"
}

// maxLinks is the kernel's limit of symlinks followed in one lookup.
const maxLinks = 40

// ResolvedAccesses is FileAccesses with each access tied to the file the
// kernel reached. A PATH record's name is the string the caller passed,
// resolved by the kernel to the inode it records: a write through
// ws/link -> ~/.bashrc records "ws/link" with .bashrc's inode. So each
// name is resolved again here, under root (RootOf the event's pid), and
// the result is kept only when its inode and device equal the record's:
//   - the name itself (lstat) or, through a final symlink, its target;
//   - for a name gone since (a temp file created and deleted, the source
//     of a rename), its directory, which must be one the event recorded
//     as PARENT (the kernel's own inode of the directory it changed).
//
// Anything else is Unverified, with the recorded name as Path: the agent
// may have changed the link since, and a run with such an access is
// inconclusive unless every candidate is allowed. /proc/self/... names
// are read as /proc/PID/... while the process lives.
func (e Event) ResolvedAccesses(root string) []Access {
	acc := e.FileAccesses()
	for i := range acc {
		a := &acc[i]
		name, under := a.Path, root
		if name == "" {
			// No name to place: the caller's descriptors, while it
			// lives, may say where (the inode check below decides).
			if name = e.fdCandidate(a.Item); name == "" {
				continue
			}
			under = "/" // /proc/PID/fd links read as paths from our root
		}
		resolved, ok := e.resolve(under, name, a.Item)
		a.Unverified = !ok
		if ok {
			a.Path = resolved
		}
	}
	return acc
}

func (e Event) resolve(root, name string, item Path) (string, bool) {
	name = absName(name)
	if rest, ok := procSelf(name); ok {
		return e.resolveProc(root, rest, item)
	}
	// The directory as the kernel walked it: a ".." in name is taken
	// from where the elements before it led.
	dirName, base := name[:strings.LastIndex(name, "/")+1], path.Base(name)
	dir, err := walk(root, dirName)
	if err != nil {
		return "", false
	}
	full := path.Join(dir, base)
	if base == ".." {
		full = path.Dir(dir)
	}
	var st unix.Stat_t
	if err := unix.Lstat(path.Join(root, full), &st); err == nil {
		if sameFile(&st, item) {
			return full, true
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			target, err := walk(root, full)
			if err == nil && unix.Stat(path.Join(root, target), &st) == nil && sameFile(&st, item) {
				return target, true
			}
		}
	}
	// Gone or replaced since: a created or deleted name is verified by
	// its directory, which must be the one the kernel changed.
	parent, ok := e.parentOf(item)
	if !ok || unix.Stat(path.Join(root, dir), &st) != nil || !sameFile(&st, parent) {
		return "", false
	}
	return full, true
}

// parentOf returns the PARENT item of the directory in which a CREATE
// or DELETE item's name was changed: the one whose recorded name is the
// item's directory (the kernel records a parent by the caller's prefix
// or, without one, by its path), else the only one. A rename between
// directories names both, in no fixed order; an item that matches
// neither stays unverified.
func (e Event) parentOf(item Path) (Path, bool) {
	if item.NameType != "CREATE" && item.NameType != "DELETE" {
		return Path{}, false
	}
	var parents []Path
	for _, p := range e.Paths {
		if p.NameType != "PARENT" {
			continue
		}
		if p.Abs != "" && p.Abs == path.Dir(item.Abs) {
			return p, true
		}
		parents = append(parents, p)
	}
	if len(parents) == 1 {
		return parents[0], true
	}
	return Path{}, false
}

// fdCandidate names an item through /proc/PID/fd while the caller lives:
// the directory descriptor a relative name starts from, for an open
// that recorded no name (a file created through a dangling symlink, an
// open_by_handle_at) the descriptor it returned, for a change through a
// descriptor (fchmod) that descriptor. "" when there is none.
func (e Event) fdCandidate(item Path) string {
	fd := -1
	name := ""
	switch {
	case item.Name != "" && item.dirfd >= 0:
		fd, name = item.dirfd, item.Name
	case item.Name == "" && e.Exit >= 0 && openCall(e.Syscall):
		fd = int(e.Exit)
	case item.Name == "" && e.byDescriptorOnly():
		// fchmod(fd), fsetxattr(fd), futimens: the descriptor itself.
		fd = int(int32(uint32(e.Args[0])))
	default:
		return ""
	}
	target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", e.PID, fd))
	if err != nil || !path.IsAbs(target) {
		return ""
	}
	return path.Join(target, name)
}

func openCall(name string) bool {
	switch name {
	case "open", "openat", "openat2", "creat", "open_by_handle_at":
		return true
	}
	return false
}

// procSelf splits /proc/self/REST and /proc/thread-self/REST.
func procSelf(name string) (string, bool) {
	for _, p := range []string{"/proc/self/", "/proc/thread-self/"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return rest, true
		}
	}
	return "", false
}

// resolveProc reads /proc/PID/REST of the caller while it lives: a
// reopen through /proc/self/fd/N is the file behind the descriptor. A
// name through the caller's root or CWD link (/proc/self/root/../x)
// continues from there: under root, or from the CWD the kernel
// recorded. Any other name through a magic link stays unverified: the
// link's target names the link, not the file beyond it.
func (e Event) resolveProc(root, rest string, item Path) (string, bool) {
	switch first, tail, _ := strings.Cut(rest, "/"); first {
	case "root":
		return e.resolve(root, "/"+tail, item)
	case "cwd":
		if path.IsAbs(e.CWD) {
			return e.resolve(root, e.CWD+"/"+tail, item)
		}
		return "", false
	}
	link := fmt.Sprintf("/proc/%d/%s", e.PID, rest)
	var st unix.Stat_t
	if unix.Stat(link, &st) != nil || !sameFile(&st, item) {
		return "", false
	}
	target, err := os.Readlink(link)
	if err != nil || !path.IsAbs(target) {
		return "", false
	}
	return target, true
}

// sameFile compares a stat with a PATH item's inode and device.
func sameFile(st *unix.Stat_t, p Path) bool {
	if p.Inode == 0 || st.Ino != p.Inode {
		return false
	}
	major, minor, ok := strings.Cut(p.Dev, ":")
	if !ok {
		return false
	}
	ma, err1 := strconv.ParseUint(major, 16, 32)
	mi, err2 := strconv.ParseUint(minor, 16, 32)
	return err1 == nil && err2 == nil && unix.Major(st.Dev) == uint32(ma) && unix.Minor(st.Dev) == uint32(mi)
}

// walk resolves every symlink of the absolute name, as the kernel would
// for a process whose root is root, and returns the result relative to
// root. Components that do not exist are kept as written.
func walk(root, name string) (string, error) {
	resolved := "/"
	rest := strings.Split(name, "/")
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, c)
		fi, err := os.Lstat(path.Join(root, next))
		if errors.Is(err, fs.ErrNotExist) {
			resolved = next
			continue
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", syscall.ELOOP
		}
		target, err := os.Readlink(path.Join(root, next))
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, nil
}

// SocketPath ties the Unix socket a connect or send reached to a path:
// the PATH item the kernel recorded for the socket (its inode), its name
// resolved again under root as ResolvedAccesses does, kept only when it
// still leads to that inode. found=false: the event recorded no socket
// (an abstract name, a bind, which creates one); ok=false: it did, and
// the name leads elsewhere now (a symlink swapped since).
func (e Event) SocketPath(root string) (p string, found, ok bool) {
	for _, item := range e.Paths {
		if item.Mode&unix.S_IFMT != unix.S_IFSOCK || item.Inode == 0 || item.Abs == "" {
			continue
		}
		p, ok = e.resolve(root, item.Abs, item)
		return p, true, ok
	}
	return "", false, false
}
