package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// WriteMemBytes writes b at addr in process pid's memory
// (process_vm_writev, with the access ReadMemBytes needs), as a
// syscall's put_user would: a page the process may not write fails
// with EFAULT, as does a write that stops short. A caller of a held
// call checks NotifIDValid just before: pid is the caller only while
// its call waits.
func WriteMemBytes(pid int, addr uint64, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	local := []unix.Iovec{{Base: &b[0], Len: uint64(len(b))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(b)}}
	n, err := unix.ProcessVMWritev(pid, local, remote, 0)
	if err != nil {
		return os.NewSyscallError("process_vm_writev", err)
	}
	if n != len(b) {
		return os.NewSyscallError("process_vm_writev", unix.EFAULT)
	}
	return nil
}
