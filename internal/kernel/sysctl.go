package kernel

import (
	"fmt"
	"os"
	"strings"
)

// sysctlPath maps a dotted sysctl name (kernel.seccomp.actions_logged) to
// its file under /proc/sys.
func sysctlPath(name string) string { return "/proc/sys/" + strings.ReplaceAll(name, ".", "/") }

// ReadSysctl returns the value of the sysctl name (dotted, as sysctl(8)
// takes it), without the trailing newline.
func ReadSysctl(name string) (string, error) {
	b, err := os.ReadFile(sysctlPath(name))
	if err != nil {
		return "", fmt.Errorf("read sysctl %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteSysctl sets the sysctl name to value in one write(2), as
// sysctl -w does. Most need root (some CAP_SYS_ADMIN).
func WriteSysctl(name, value string) error {
	if err := os.WriteFile(sysctlPath(name), []byte(value+"\n"), 0o644); err != nil {
		return fmt.Errorf("write sysctl %s: %w", name, err)
	}
	return nil
}

// BootCmdline returns the kernel command line (/proc/cmdline).
func BootCmdline() (string, error) {
	b, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
