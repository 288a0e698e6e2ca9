package auditnl

import (
	"os"

	"golang.org/x/sys/unix"
)

// HasEffectiveCap reports whether the calling thread has capability c
// (unix.CAP_*) in its effective set.
func HasEffectiveCap(c int) (bool, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, os.NewSyscallError("capget", err)
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0, nil
}

// Inode returns the inode number of path, following symlinks (namespace
// files under /proc/self/ns).
func Inode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Ino, nil
}

// The fixed inode numbers of the initial namespaces (include/linux/proc_ns.h).
// The net one is fixed only on newer kernels; elsewhere it is allocated.
const (
	InitUserNSInode = 0xEFFFFFFD
	InitNetNSInode  = 0xEFFFFFF9
)

// Flock applies a flock(2) operation, retrying on EINTR.
func Flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err == unix.EINTR {
			continue
		}
		return os.NewSyscallError("flock", err)
	}
}

// Flock operations.
const (
	LockShared    = unix.LOCK_SH
	LockExclusive = unix.LOCK_EX
	LockUnlock    = unix.LOCK_UN
)

// CapAuditRead and CapAuditControl are the capabilities audit needs.
const (
	CapAuditRead    = unix.CAP_AUDIT_READ
	CapAuditControl = unix.CAP_AUDIT_CONTROL
)
