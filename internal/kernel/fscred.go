package kernel

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FSCred is what the kernel checks file access against: the file-system
// uid and gid, the supplementary groups, and the effective capabilities.
type FSCred struct {
	UID, GID uint32
	Groups   []uint32
	// CapEff is the effective capability set (bit n: capability n).
	CapEff uint64
}

// ThreadFSCred returns the calling thread's credentials for file access.
func ThreadFSCred() (FSCred, error) {
	c := FSCred{UID: uint32(setfsid(unix.SYS_SETFSUID, ^uint32(0))), GID: uint32(setfsid(unix.SYS_SETFSGID, ^uint32(0)))}
	n, _, errno := unix.RawSyscall(unix.SYS_GETGROUPS, 0, 0, 0)
	if errno != 0 {
		return FSCred{}, os.NewSyscallError("getgroups", errno)
	}
	if n > 0 {
		c.Groups = make([]uint32, n)
		if _, _, errno := unix.RawSyscall(unix.SYS_GETGROUPS, n, uintptr(unsafe.Pointer(&c.Groups[0])), 0); errno != 0 {
			return FSCred{}, os.NewSyscallError("getgroups", errno)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return FSCred{}, os.NewSyscallError("capget", err)
	}
	c.CapEff = uint64(data[1].Effective)<<32 | uint64(data[0].Effective)
	return c, nil
}

// setfsid calls setfsuid/setfsgid, which return the previous id and
// never an error; id ^0 changes nothing and so reads the current one.
func setfsid(nr uintptr, id uint32) uint32 {
	r, _, _ := unix.RawSyscall(nr, uintptr(id), 0, 0)
	return uint32(r)
}

// SetThreadFSCred makes the calling thread, and only it, access files as
// c: the caller must have locked its goroutine to the thread, and the
// thread must do nothing else until it sets its own credentials back.
// Raw syscalls on purpose: Go's syscall.Setgroups changes every thread
// of the process. The effective capabilities become c.CapEff limited to
// the thread's permitted set, so nobody gains one through the thread.
// Setting a uid the thread may not take fails with EPERM.
func SetThreadFSCred(c FSCred) error {
	// Raise every permitted capability first: going back to the
	// supervisor's groups needs CAP_SETGID, which the caller's set may
	// lack; the set is lowered to the caller's at the end.
	if err := setEffectiveCaps(^uint64(0)); err != nil {
		return err
	}
	setfsid(unix.SYS_SETFSUID, c.UID)
	setfsid(unix.SYS_SETFSGID, c.GID)
	// setfsuid reports no failure: read back what the thread has now.
	if uid, gid := setfsid(unix.SYS_SETFSUID, ^uint32(0)), setfsid(unix.SYS_SETFSGID, ^uint32(0)); uid != c.UID || gid != c.GID {
		return os.NewSyscallError(fmt.Sprintf("setfsuid(%d)/setfsgid(%d)", c.UID, c.GID), unix.EPERM)
	}
	var list unsafe.Pointer
	if len(c.Groups) > 0 {
		list = unsafe.Pointer(&c.Groups[0])
	}
	if _, _, errno := unix.RawSyscall(unix.SYS_SETGROUPS, uintptr(len(c.Groups)), uintptr(list), 0); errno != 0 {
		// Without CAP_SETGID the thread keeps its own groups: the same
		// as the caller's only if they are equal.
		if !sameGroups(c.Groups) {
			return os.NewSyscallError("setgroups", errno)
		}
	}
	return setEffectiveCaps(c.CapEff)
}

// setEffectiveCaps sets the thread's effective set to want, limited to
// its permitted set.
func setEffectiveCaps(want uint64) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return os.NewSyscallError("capget", err)
	}
	data[0].Effective = uint32(want) & data[0].Permitted
	data[1].Effective = uint32(want>>32) & data[1].Permitted
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return os.NewSyscallError("capset", err)
	}
	return nil
}

func sameGroups(want []uint32) bool {
	have, err := ThreadFSCred()
	if err != nil || len(have.Groups) != len(want) {
		return false
	}
	seen := map[uint32]bool{}
	for _, g := range have.Groups {
		seen[g] = true
	}
	for _, g := range want {
		if !seen[g] {
			return false
		}
	}
	return true
}

// UnshareThreadFS gives the calling thread a file-system context (cwd,
// root, umask) of its own, so SetThreadUmask changes no other thread.
// The goroutine must stay locked to the thread until the thread ends.
func UnshareThreadFS() error {
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return os.NewSyscallError("unshare(CLONE_FS)", err)
	}
	return nil
}

// SetThreadUmask sets the umask of the calling thread's file-system
// context (see UnshareThreadFS).
func SetThreadUmask(mask uint32) { unix.Umask(int(mask & 0o777)) }
