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
