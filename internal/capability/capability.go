package capability

import (
	"strconv"
	"strings"
)

// names are the kernel's names without the CAP_ prefix, by
// number (include/uapi/linux/capability.h).
var names = [...]string{
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
	"IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
	"SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
	"LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
	"WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE",
}

// Name returns "CAP_SYS_ADMIN" for 21; "CAP_<n>" for numbers
// this build does not know.
func Name(c int) string {
	if c >= 0 && c < len(names) {
		return "CAP_" + names[c]
	}
	return "CAP_" + strconv.Itoa(c)
}

// ByName parses "CAP_SYS_ADMIN", "SYS_ADMIN" or "sys_admin".
func ByName(name string) (int, bool) {
	name = strings.TrimPrefix(strings.ToUpper(name), "CAP_")
	for c, n := range names {
		if n == name {
			return c, true
		}
	}
	return -1, false
}
