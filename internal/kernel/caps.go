package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// The capabilities audit needs: reading the multicast group, and changing
// audit settings or a login uid that is already set.
const (
	CapAuditRead    = unix.CAP_AUDIT_READ
	CapAuditControl = unix.CAP_AUDIT_CONTROL
)

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

// SetEffectiveCapability raises or lowers c in the calling thread's
// effective set only; it stays permitted, so it can be raised again.
func SetEffectiveCapability(c uintptr, on bool) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return os.NewSyscallError("capget", err)
	}
	word, bit := c/32, uint32(1)<<(c%32)
	if on {
		data[word].Effective |= bit
	} else {
		data[word].Effective &^= bit
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return os.NewSyscallError("capset", err)
	}
	return nil
}
