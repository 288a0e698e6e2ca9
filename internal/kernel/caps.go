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

// capabilityNames are the kernel's names without the CAP_ prefix, by
// number (include/uapi/linux/capability.h).
var capabilityNames = [...]string{
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
	"IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
	"SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
	"LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
	"WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE",
}

// CapabilityName returns "CAP_SYS_ADMIN" for 21; "CAP_<n>" for numbers
// this build does not know.
func CapabilityName(c int) string {
	if c >= 0 && c < len(capabilityNames) {
		return "CAP_" + capabilityNames[c]
	}
	return "CAP_" + strconv.Itoa(c)
}

// CapabilityByName parses "CAP_SYS_ADMIN", "SYS_ADMIN" or "sys_admin".
func CapabilityByName(name string) (int, bool) {
	name = strings.TrimPrefix(strings.ToUpper(name), "CAP_")
	for c, n := range capabilityNames {
		if n == name {
			return c, true
		}
	}
	return -1, false
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
