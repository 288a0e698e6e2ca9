package envprobe

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fakeSection is one PROGBITS section of a fake ELF file; a .dynstr is a
// string table, and a .dynamic the dynamic section whose strings are in
// the .dynstr given before it.
type fakeSection struct {
	name string
	data []byte
}

// writeFakeELF writes a minimal little-endian ELF64 executable: an
// optional PT_INTERP and the given sections. It stands in for a libc or
// loader this machine does not have (musl, another glibc).
func writeFakeELF(t *testing.T, path string, machine elf.Machine, interp string, sections ...fakeSection) {
	t.Helper()
	const ehsize, phsize, shsize = 64, 56, 64
	var body bytes.Buffer // everything after the headers
	nph := 0
	if interp != "" {
		nph = 1
	}
	dataStart := uint64(ehsize + nph*phsize)
	interpOff := dataStart
	body.WriteString(interp + "\x00")

	shstrtab := []byte("\x00")
	shdrs := []elf.Section64{{}}
	dynstr := uint32(0) // the .dynstr's index
	for _, s := range append(sections, fakeSection{name: ".shstrtab"}) {
		nameOff := uint32(len(shstrtab))
		shstrtab = append(shstrtab, s.name+"\x00"...)
		data := s.data
		typ, flags, link := uint32(elf.SHT_PROGBITS), uint64(elf.SHF_ALLOC), uint32(0)
		switch s.name {
		case ".dynstr":
			typ, dynstr = uint32(elf.SHT_STRTAB), uint32(len(shdrs))
		case ".dynamic":
			typ, link = uint32(elf.SHT_DYNAMIC), dynstr
		}
		if s.name == ".shstrtab" {
			data, typ, flags = shstrtab, uint32(elf.SHT_STRTAB), 0
		}
		off := dataStart + uint64(body.Len())
		body.Write(data)
		shdrs = append(shdrs, elf.Section64{Name: nameOff, Type: typ, Flags: flags, Addr: off, Off: off, Size: uint64(len(data)), Link: link, Addralign: 1})
	}
	for body.Len()%8 != 0 {
		body.WriteByte(0)
	}
	shoff := dataStart + uint64(body.Len())

	hdr := elf.Header64{
		Type: uint16(elf.ET_DYN), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT),
		Shoff: shoff, Ehsize: ehsize, Shentsize: shsize,
		Shnum: uint16(len(shdrs)), Shstrndx: uint16(len(shdrs) - 1),
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	if nph > 0 {
		hdr.Phoff, hdr.Phentsize, hdr.Phnum = ehsize, phsize, 1
	}
	var out bytes.Buffer
	le := binary.LittleEndian
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(binary.Write(&out, le, hdr))
	if nph > 0 {
		n := uint64(len(interp) + 1)
		must(binary.Write(&out, le, elf.Prog64{Type: uint32(elf.PT_INTERP), Flags: uint32(elf.PF_R), Off: interpOff, Vaddr: interpOff, Paddr: interpOff, Filesz: n, Memsz: n, Align: 1}))
	}
	out.Write(body.Bytes())
	for _, sh := range shdrs {
		must(binary.Write(&out, le, sh))
	}
	must(os.MkdirAll(filepath.Dir(path), 0o755))
	must(os.WriteFile(path, out.Bytes(), 0o755))
}

// dynamicNeeding is the .dynstr and .dynamic sections of an executable
// that links libs.
func dynamicNeeding(libs ...string) []fakeSection {
	dynstr := []byte("\x00")
	var dynamic bytes.Buffer
	for _, lib := range libs {
		binary.Write(&dynamic, binary.LittleEndian, elf.Dyn64{Tag: int64(elf.DT_NEEDED), Val: uint64(len(dynstr))})
		dynstr = append(dynstr, lib+"\x00"...)
	}
	binary.Write(&dynamic, binary.LittleEndian, elf.Dyn64{Tag: int64(elf.DT_NULL)})
	return []fakeSection{{".dynstr", dynstr}, {".dynamic", dynamic.Bytes()}}
}

func TestFakeELFParses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prog")
	writeFakeELF(t, path, elf.EM_X86_64, "/lib/ld-musl-x86_64.so.1", fakeSection{".rodata", []byte("a\x00b")})
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := interpreter(f); got != "/lib/ld-musl-x86_64.so.1" {
		t.Errorf("interpreter = %q", got)
	}
	if got := readSection(f, ".rodata", 100); string(got) != "a\x00b" {
		t.Errorf(".rodata = %q", got)
	}

	path = filepath.Join(t.TempDir(), "linked")
	writeFakeELF(t, path, elf.EM_X86_64, "", dynamicNeeding("libnode.so.115", "libc.so.6")...)
	f, err = elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if libs, err := f.ImportedLibraries(); err != nil || !slices.Equal(libs, []string{"libnode.so.115", "libc.so.6"}) {
		t.Errorf("ImportedLibraries = %q, %v", libs, err)
	}
}
