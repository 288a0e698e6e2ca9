package kernel

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TaskCred is every credential of a task that a socket call uses: the
// uids and gids (real, effective, saved, file system), which a Unix
// socket peer sees (SO_PEERCRED, SCM_CREDENTIALS) and path lookups
// check, the groups, and the effective capabilities, which bind
// (ports below ip_unprivileged_port_start) and path lookups check.
type TaskCred struct {
	UID, GID [4]uint32
	Groups   []uint32
	CapEff   uint64
	// Umask: a Unix socket bound to a path gets a file made with it.
	Umask uint32
	// Tgid is the task's thread group; NSTgid and NSPid its group and
	// itself as its own PID namespace numbers them (the last NStgid and
	// NSpid fields; 0 when the status has none).
	Tgid, NSTgid, NSPid int
}

// ReadTaskCred reads /proc/tid/status. The capabilities count only when
// the task is in this process's user namespace: a set held in a
// namespace of its own grants nothing outside it.
func ReadTaskCred(tid int) (TaskCred, error) {
	path := "/proc/" + strconv.Itoa(tid) + "/status"
	b, err := os.ReadFile(path)
	if err != nil {
		return TaskCred{}, err
	}
	c, err := ParseTaskCred(b)
	if err != nil {
		return TaskCred{}, fmt.Errorf("read %s: %w", path, err)
	}
	if c.CapEff == 0 {
		return c, nil
	}
	var theirs, ours unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(tid)+"/ns/user", &theirs); err != nil {
		return TaskCred{}, os.NewSyscallError("stat user ns", err)
	}
	if err := unix.Stat("/proc/self/ns/user", &ours); err != nil {
		return TaskCred{}, os.NewSyscallError("stat user ns", err)
	}
	if theirs.Dev != ours.Dev || theirs.Ino != ours.Ino {
		c.CapEff = 0
	}
	return c, nil
}

// ParseTaskCred reads a /proc/PID/status. It needs every credential
// field it reads: a status without one says nothing certain about the
// task.
func ParseTaskCred(status []byte) (TaskCred, error) {
	var c TaskCred
	const uid, gid, groups, capEff, umask = 1, 2, 4, 8, 16
	found := 0
	for _, line := range bytes.Split(status, []byte("\n")) {
		key, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v := strings.TrimSpace(string(val))
		var err error
		switch string(key) {
		case "Uid":
			c.UID, err = fourIDs(v)
			found |= uid
		case "Gid":
			c.GID, err = fourIDs(v)
			found |= gid
		case "Groups":
			for _, f := range strings.Fields(v) {
				n, perr := strconv.ParseUint(f, 10, 32)
				if perr != nil {
					err = perr
					break
				}
				c.Groups = append(c.Groups, uint32(n))
			}
			found |= groups
		case "Umask":
			var m uint64
			m, err = strconv.ParseUint(v, 8, 32)
			c.Umask = uint32(m)
			found |= umask
		case "CapEff":
			c.CapEff, err = strconv.ParseUint(v, 16, 64)
			found |= capEff
		case "Tgid":
			c.Tgid, err = strconv.Atoi(v)
		case "NStgid", "NSpid":
			if f := strings.Fields(v); len(f) > 0 {
				n, perr := strconv.Atoi(f[len(f)-1])
				err = perr
				if string(key) == "NStgid" {
					c.NSTgid = n
				} else {
					c.NSPid = n
				}
			}
		}
		if err != nil {
			return TaskCred{}, fmt.Errorf("status %s: %q: %w", key, v, err)
		}
	}
	if found != uid|gid|groups|capEff|umask {
		return TaskCred{}, fmt.Errorf("status: a Uid, Gid, Groups, Umask or CapEff line is missing")
	}
	return c, nil
}

func fourIDs(v string) ([4]uint32, error) {
	var ids [4]uint32
	f := strings.Fields(v)
	if len(f) != 4 {
		return ids, fmt.Errorf("want 4 ids")
	}
	for i, s := range f {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return ids, err
		}
		ids[i] = uint32(n)
	}
	return ids, nil
}

// AssumeThreadCred gives the calling thread, and only it, the task
// credentials c, for good: raw syscalls (Go's wrappers change every
// thread) and no way back. The caller must have locked its goroutine
// to a thread it lets end afterwards (return without unlocking). The
// effective capabilities become c.CapEff limited to what the thread
// still permits after the uid change, so nobody gains one.
func AssumeThreadCred(c TaskCred) error {
	// Keep the permitted set across the uid change: a caller with a uid
	// of its own may still hold capabilities (ambient, file caps).
	if _, _, e := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_KEEPCAPS, 1, 0); e != 0 {
		return os.NewSyscallError("prctl(PR_SET_KEEPCAPS)", e)
	}
	var list unsafe.Pointer
	if len(c.Groups) > 0 {
		list = unsafe.Pointer(&c.Groups[0])
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, uintptr(len(c.Groups)), uintptr(list), 0); e != 0 && !sameGroups(c.Groups) {
		// Without CAP_SETGID (a supervisor that is not root) the thread
		// keeps its own groups: right only if they are the caller's.
		return os.NewSyscallError("setgroups", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(c.GID[0]), uintptr(c.GID[1]), uintptr(c.GID[2])); e != 0 {
		return os.NewSyscallError("setresgid", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(c.UID[0]), uintptr(c.UID[1]), uintptr(c.UID[2])); e != 0 {
		return os.NewSyscallError("setresuid", e)
	}
	setfsid(unix.SYS_SETFSGID, c.GID[3])
	setfsid(unix.SYS_SETFSUID, c.UID[3])
	if uid, gid := setfsid(unix.SYS_SETFSUID, ^uint32(0)), setfsid(unix.SYS_SETFSGID, ^uint32(0)); uid != c.UID[3] || gid != c.GID[3] {
		return os.NewSyscallError(fmt.Sprintf("setfsuid(%d)/setfsgid(%d)", c.UID[3], c.GID[3]), unix.EPERM)
	}
	SetThreadUmask(c.Umask)
	return setEffectiveCaps(c.CapEff)
}
