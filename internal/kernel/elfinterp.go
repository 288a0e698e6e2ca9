package kernel

import (
	"bytes"
	"encoding/binary"
	"io"
)

// ELF header and program header fields the kernel's ELF loader reads
// (fs/binfmt_elf.c, load_elf_binary and load_elf_phdrs).
const (
	elfClass32, elfClass64   = 1, 2
	elfData2LSB, elfData2MSB = 1, 2
	elfTypeExec, elfTypeDyn  = 2, 3
	elfProgInterp            = 3 // PT_INTERP
	// elfMaxPhdrBytes is load_elf_phdrs' bound on the program header
	// table (some kernels also bound it by a page: a table between the
	// two fails the exec there, and only adds an observation here).
	elfMaxPhdrBytes = 65536
	pathMaxBytes    = 4096 // PATH_MAX: the longest PT_INTERP the kernel takes
)

// ELFInterpreter is the program interpreter an exec of the file r reads
// opens for execution after the file itself: the path of the first
// PT_INTERP program header, as the kernel's ELF loader takes it. "" for
// a file the ELF loader would not load with one: not ELF, neither an
// executable nor a shared object (ET_EXEC, ET_DYN), a program header
// table the kernel refuses, a static program, or a PT_INTERP the kernel
// refuses (shorter than 2 bytes, longer than PATH_MAX, not NUL
// terminated). The machine is not checked: an ELF file of another
// architecture fails the exec, and naming its interpreter anyway only
// adds an observation.
//
// The audit backend sees this open in the exec's PATH records; the
// notify backend reads it here, from the descriptor of the file the
// exec reaches, so the path is the one in the file the kernel runs.
func ELFInterpreter(r io.ReaderAt) (string, error) {
	var ident [16]byte
	if _, err := r.ReadAt(ident[:], 0); err != nil {
		if err == io.EOF {
			return "", nil
		}
		return "", err
	}
	if !bytes.Equal(ident[:4], []byte("\x7fELF")) {
		return "", nil
	}
	var order binary.ByteOrder
	switch ident[5] {
	case elfData2LSB:
		order = binary.LittleEndian
	case elfData2MSB:
		order = binary.BigEndian
	default:
		return "", nil
	}
	// The header fields after e_ident, by class: e_type at 16, then
	// e_phoff and e_phentsize/e_phnum at offsets that depend on the
	// word size.
	var hdr [64]byte
	n, err := r.ReadAt(hdr[:], 0)
	if err != nil && err != io.EOF {
		return "", err
	}
	var phoff uint64
	var phentsize, phnum, wantEntSize uint16
	switch ident[4] {
	case elfClass64:
		if n < 64 {
			return "", nil
		}
		phoff = order.Uint64(hdr[32:])
		phentsize, phnum, wantEntSize = order.Uint16(hdr[54:]), order.Uint16(hdr[56:]), 56
	case elfClass32:
		if n < 52 {
			return "", nil
		}
		phoff = uint64(order.Uint32(hdr[28:]))
		phentsize, phnum, wantEntSize = order.Uint16(hdr[42:]), order.Uint16(hdr[44:]), 32
	default:
		return "", nil
	}
	if t := order.Uint16(hdr[16:]); t != elfTypeExec && t != elfTypeDyn {
		return "", nil
	}
	size := int(phentsize) * int(phnum)
	if phentsize != wantEntSize || size == 0 || size > elfMaxPhdrBytes || phoff > 1<<62 {
		return "", nil
	}
	phdrs := make([]byte, size)
	if _, err := r.ReadAt(phdrs, int64(phoff)); err != nil {
		if err == io.EOF {
			return "", nil // the kernel's read comes up short: no exec
		}
		return "", err
	}
	for off := 0; off < size; off += int(phentsize) {
		ph := phdrs[off:]
		if order.Uint32(ph) != elfProgInterp {
			continue
		}
		var fileOff, fileSize uint64
		if ident[4] == elfClass64 {
			fileOff, fileSize = order.Uint64(ph[8:]), order.Uint64(ph[32:])
		} else {
			fileOff, fileSize = uint64(order.Uint32(ph[4:])), uint64(order.Uint32(ph[16:]))
		}
		if fileSize < 2 || fileSize > pathMaxBytes || fileOff > 1<<62 {
			return "", nil
		}
		buf := make([]byte, fileSize)
		if _, err := r.ReadAt(buf, int64(fileOff)); err != nil {
			if err == io.EOF {
				return "", nil
			}
			return "", err
		}
		if buf[len(buf)-1] != 0 {
			return "", nil
		}
		// The kernel opens it as a C string: up to the first NUL.
		return string(buf[:bytes.IndexByte(buf, 0)]), nil
	}
	return "", nil
}
