//go:build linux && cgo

package compile

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"unsafe"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/scmp"
)

// exportMerged builds one filter per arch (a rule added to a multi-arch
// libseccomp filter applies to every arch, while a baseline's sections
// differ per arch), merges them and exports the program. what names the
// filter in errors.
func exportMerged(what string, arches []scmp.Arch, build func(scmp.Arch) (*seccomp.ScmpFilter, error)) ([]unix.SockFilter, error) {
	var merged *seccomp.ScmpFilter
	for _, arch := range arches {
		f, err := build(arch)
		if err != nil {
			if merged != nil {
				merged.Release()
			}
			return nil, fmt.Errorf("%w %s for %s: %w", ErrCompile, what, arch, err)
		}
		if merged == nil {
			merged = f
			continue
		}
		if err := merged.Merge(f); err != nil {
			f.Release()
			merged.Release()
			return nil, fmt.Errorf("%w %s: merge %s: %w", ErrCompile, what, arch, err)
		}
	}
	defer merged.Release()
	prog, err := exportBPF(merged)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrCompile, what, err)
	}
	return prog, nil
}

// exportBPF exports the filter into a memfd (ExportBPFMem needs
// libseccomp 2.6) and decodes the raw sock_filter array.
func exportBPF(f *seccomp.ScmpFilter) ([]unix.SockFilter, error) {
	fd, err := unix.MemfdCreate("sysgate-bpf", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("memfd_create", err)
	}
	file := os.NewFile(uintptr(fd), "sysgate-bpf")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, fmt.Errorf("export bpf: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("export bpf: %w", err)
	}
	raw, err := io.ReadAll(file)
	if err != nil {
		return nil, fmt.Errorf("export bpf: %w", err)
	}
	return decodeSockFilters(raw)
}

// decodeSockFilters splits libseccomp's output (struct sock_filter in host
// byte order) into instructions.
func decodeSockFilters(raw []byte) ([]unix.SockFilter, error) {
	const size = int(unsafe.Sizeof(unix.SockFilter{}))
	if len(raw) == 0 || len(raw)%size != 0 {
		return nil, fmt.Errorf("export bpf: %d bytes is not a whole program", len(raw))
	}
	if len(raw)/size > 4096 { // BPF_MAXINSNS
		return nil, fmt.Errorf("export bpf: %d instructions exceed the kernel limit of 4096", len(raw)/size)
	}
	prog := make([]unix.SockFilter, 0, len(raw)/size)
	for off := 0; off < len(raw); off += size {
		prog = append(prog, unix.SockFilter{
			Code: binary.NativeEndian.Uint16(raw[off:]),
			Jt:   raw[off+2],
			Jf:   raw[off+3],
			K:    binary.NativeEndian.Uint32(raw[off+4:]),
		})
	}
	return prog, nil
}
