//go:build linux && cgo

package kernel

/*
#include <stdlib.h>
*/
import "C"

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// cMemory tracks C allocations the child reads: it shares our memory, and
// cgo forbids handing C Go memory that holds Go pointers.
type cMemory []unsafe.Pointer

func (m *cMemory) alloc(n uintptr) unsafe.Pointer {
	p := C.calloc(1, C.size_t(n))
	*m = append(*m, p)
	return p
}

// fprog copies a filter program into C memory as a struct sock_fprog.
func (m *cMemory) fprog(prog []unix.SockFilter) *unix.SockFprog {
	insns := m.alloc(uintptr(len(prog)) * unsafe.Sizeof(unix.SockFilter{}))
	copy(unsafe.Slice((*unix.SockFilter)(insns), len(prog)), prog)
	fprog := (*unix.SockFprog)(m.alloc(unsafe.Sizeof(unix.SockFprog{})))
	fprog.Len, fprog.Filter = uint16(len(prog)), (*unix.SockFilter)(insns)
	return fprog
}

func (m *cMemory) cstring(s string) *C.char {
	p := C.CString(s)
	*m = append(*m, unsafe.Pointer(p))
	return p
}

// strings returns a NULL-terminated char* array.
func (m *cMemory) strings(ss []string) unsafe.Pointer {
	arr := m.alloc(uintptr(len(ss)+1) * unsafe.Sizeof(uintptr(0)))
	ptrs := unsafe.Slice((**C.char)(arr), len(ss)+1)
	for i, s := range ss {
		ptrs[i] = m.cstring(s)
	}
	return arr
}

func (m *cMemory) free() {
	for _, p := range *m {
		C.free(p)
	}
}
