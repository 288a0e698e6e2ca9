package kernel

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The capabilities audit needs: reading the multicast group, and changing
// audit settings or a login uid that is already set.
const (
	CapAuditRead    = unix.CAP_AUDIT_READ
	CapAuditControl = unix.CAP_AUDIT_CONTROL
)

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

// LastCapability is the highest capability the running kernel knows
// (/proc/sys/kernel/cap_last_cap): dropping a higher one fails.
var LastCapability = sync.OnceValues(func() (int, error) {
	const path = "/proc/sys/kernel/cap_last_cap"
	data, err := os.ReadFile(path)
	if err != nil {
		return -1, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return -1, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
})
