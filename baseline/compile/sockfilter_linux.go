package compile

import "golang.org/x/sys/unix"

// SockFilter is one instruction of a filter program, as seccomp(2) takes
// it.
type SockFilter = unix.SockFilter

// SockFprog returns the program in the form seccomp(2) takes. The Filter
// must stay reachable until the syscall returns.
func (f *Filter) SockFprog() *unix.SockFprog {
	if len(f.Program) == 0 {
		return &unix.SockFprog{}
	}
	return &unix.SockFprog{Len: uint16(len(f.Program)), Filter: &f.Program[0]}
}
