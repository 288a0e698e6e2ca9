package testutil

import (
	"errors"
	"os/exec"
	"syscall"
)

// CompatEntryRuns runs cmd (a program that makes one int $0x80 syscall)
// directly, without sysgate, and reports whether the kernel ran that call.
// Some kernels build IA32 emulation in but leave the entry switched off
// (seen here on a PVM guest, and with ia32_emulation=0): there int $0x80
// raises SIGSEGV and no 32-bit syscall can run at all.
func CompatEntryRuns(cmd ...string) (bool, error) {
	err := exec.Command(cmd[0], cmd[1:]...).Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGSEGV {
			return false, nil
		}
	}
	return err == nil, err
}
