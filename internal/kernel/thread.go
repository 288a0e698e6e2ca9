package kernel

import (
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetLoginUID writes uid to /proc/thread-self/loginuid. Setting a login uid
// gives the calling thread a fresh audit session id, which every process it
// later forks or execs inherits. It needs CAP_AUDIT_CONTROL when the login
// uid is already set.
func SetLoginUID(uid uint32) error {
	return writeThreadFile("loginuid", strconv.FormatUint(uint64(uid), 10))
}

// SessionID returns the calling thread's audit session id.
func SessionID() (uint32, error) {
	b, err := os.ReadFile("/proc/thread-self/sessionid")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return 0, &os.PathError{Op: "parse", Path: "/proc/thread-self/sessionid", Err: err}
	}
	return uint32(v), nil
}

// UnsetSession is the session id of a task that never set a login uid.
const UnsetSession = ^uint32(0)

func writeThreadFile(name, value string) error {
	// One write(2) of the whole value: the kernel parses it at once.
	f, err := os.OpenFile("/proc/thread-self/"+name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte(value))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}

// DropCapability removes capability c from the calling thread's bounding,
// effective, permitted, inheritable and ambient sets, so neither the thread
// nor anything it execs (set-uid binaries included) can hold it again.
// Dropping from the bounding set needs CAP_SETPCAP.
func DropCapability(c uintptr) error {
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_CAPBSET_DROP)", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_LOWER, c, 0, 0); err != nil && err != unix.EINVAL {
		return os.NewSyscallError("prctl(PR_CAP_AMBIENT_LOWER)", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return os.NewSyscallError("capget", err)
	}
	word, bit := c/32, uint32(1)<<(c%32)
	data[word].Effective &^= bit
	data[word].Permitted &^= bit
	data[word].Inheritable &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return os.NewSyscallError("capset", err)
	}
	return nil
}

// HasCapability reports whether c is in the calling thread's effective set.
func HasCapability(c uintptr) (bool, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, os.NewSyscallError("capget", err)
	}
	return data[c/32].Effective&(1<<(c%32)) != 0, nil
}

// SetNoNewPrivs sets no_new_privs: execve can no longer grant privileges
// (set-uid bits, file capabilities), which also lets an unprivileged task
// install a seccomp filter.
func SetNoNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", err)
	}
	return nil
}

// SetIDs switches the calling thread to uid, gid and groups with raw
// syscalls that, unlike syscall.Setuid, touch only this thread: the shim
// execs from it right after.
func SetIDs(uid, gid uint32, groups []uint32) error {
	var gp unsafe.Pointer
	if len(groups) > 0 {
		gp = unsafe.Pointer(&groups[0])
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, uintptr(len(groups)), uintptr(gp), 0); e != 0 {
		return os.NewSyscallError("setgroups", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return os.NewSyscallError("setresgid", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return os.NewSyscallError("setresuid", e)
	}
	return nil
}
