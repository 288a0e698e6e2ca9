package kernel

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"testing"
)

// fakeELF is an ELF file of class, byte order and type with the given
// program headers (type, file offset of its data, data) after the
// header: what the kernel's loader reads, nothing more.
func fakeELF(class elf.Class, order binary.ByteOrder, typ elf.Type, progs ...fakeProg) []byte {
	var out bytes.Buffer
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	if order == binary.BigEndian {
		ident[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	w := func(v any) {
		if err := binary.Write(&out, order, v); err != nil {
			panic(err)
		}
	}
	data := uint64(4096) // every program's data after the headers
	if class == elf.ELFCLASS64 {
		w(elf.Header64{Ident: ident, Type: uint16(typ), Machine: uint16(elf.EM_X86_64), Version: 1, Phoff: 64, Ehsize: 64, Phentsize: 56, Phnum: uint16(len(progs))})
		for _, p := range progs {
			w(elf.Prog64{Type: uint32(p.typ), Off: data, Filesz: uint64(len(p.data))})
			data += uint64(len(p.data))
		}
	} else {
		w(elf.Header32{Ident: ident, Type: uint16(typ), Machine: uint16(elf.EM_386), Version: 1, Phoff: 52, Ehsize: 52, Phentsize: 32, Phnum: uint16(len(progs))})
		for _, p := range progs {
			w(elf.Prog32{Type: uint32(p.typ), Off: uint32(data), Filesz: uint32(len(p.data))})
			data += uint64(len(p.data))
		}
	}
	out.Write(make([]byte, 4096-out.Len()))
	for _, p := range progs {
		out.Write(p.data)
	}
	return out.Bytes()
}

type fakeProg struct {
	typ  elf.ProgType
	data []byte
}

func TestELFInterpreter(t *testing.T) {
	ld := fakeProg{elf.PT_INTERP, []byte("/lib64/ld-linux-x86-64.so.2\x00")}
	load := fakeProg{elf.PT_LOAD, []byte("code")}
	le, be := binary.LittleEndian, binary.BigEndian
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"64-bit executable", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, load, ld), "/lib64/ld-linux-x86-64.so.2"},
		{"64-bit PIE", fakeELF(elf.ELFCLASS64, le, elf.ET_DYN, ld, load), "/lib64/ld-linux-x86-64.so.2"},
		{"32-bit executable", fakeELF(elf.ELFCLASS32, le, elf.ET_EXEC, fakeProg{elf.PT_INTERP, []byte("/lib/ld-linux.so.2\x00")}), "/lib/ld-linux.so.2"},
		{"big-endian", fakeELF(elf.ELFCLASS64, be, elf.ET_EXEC, ld), "/lib64/ld-linux-x86-64.so.2"},
		{"the first PT_INTERP", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, ld, fakeProg{elf.PT_INTERP, []byte("/tmp/x\x00")}), "/lib64/ld-linux-x86-64.so.2"},
		{"a C string: up to the first NUL", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, fakeProg{elf.PT_INTERP, []byte("/lib/ld.so\x00junk\x00")}), "/lib/ld.so"},
		{"static", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, load), ""},
		{"an object file", fakeELF(elf.ELFCLASS64, le, elf.ET_REL, ld), ""},
		{"a core file", fakeELF(elf.ELFCLASS64, le, elf.ET_CORE, ld), ""},
		{"not NUL-terminated", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, fakeProg{elf.PT_INTERP, []byte("/lib/ld.so")}), ""},
		{"too short", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, fakeProg{elf.PT_INTERP, []byte("\x00")}), ""},
		{"longer than PATH_MAX", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, fakeProg{elf.PT_INTERP, append(bytes.Repeat([]byte("a"), 4096), 0)}), ""},
		{"no program headers", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC), ""},
		{"a script", []byte("#!/bin/sh\necho\n"), ""},
		{"empty", nil, ""},
		{"a header cut short", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, ld)[:40], ""},
		{"program headers cut short", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, ld)[:100], ""},
		{"the interpreter cut short", fakeELF(elf.ELFCLASS64, le, elf.ET_EXEC, ld)[:4100], ""},
	}
	for _, c := range cases {
		got, err := ELFInterpreter(bytes.NewReader(c.file))
		if err != nil || got != c.want {
			t.Errorf("%s: ELFInterpreter = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// The machine's own programs: what debug/elf reads as PT_INTERP, and
// nothing for a static one.
func TestELFInterpreterOfRealPrograms(t *testing.T) {
	for _, path := range []string{"/bin/true", "/bin/sh", "/proc/self/exe"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		want := ""
		ef, err := elf.NewFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				b := make([]byte, p.Filesz)
				if _, err := p.ReadAt(b, 0); err != nil {
					t.Fatal(err)
				}
				want = string(bytes.TrimRight(b, "\x00"))
				break
			}
		}
		got, err := ELFInterpreter(f)
		if err != nil || got != want {
			t.Errorf("%s: ELFInterpreter = %q, %v; want %q", path, got, err, want)
		}
		if path == "/bin/true" && got == "" {
			t.Errorf("/bin/true: no interpreter; this test expects a dynamic /bin/true")
		}
	}
}

func FuzzELFInterpreter(f *testing.F) {
	f.Add(fakeELF(elf.ELFCLASS64, binary.LittleEndian, elf.ET_EXEC, fakeProg{elf.PT_INTERP, []byte("/lib64/ld-linux-x86-64.so.2\x00")}))
	f.Add(fakeELF(elf.ELFCLASS32, binary.BigEndian, elf.ET_DYN, fakeProg{elf.PT_INTERP, []byte("/x\x00")}))
	f.Add([]byte("#!/bin/sh\n"))
	f.Fuzz(func(t *testing.T, file []byte) {
		got, err := ELFInterpreter(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("an in-memory file gave an error: %v", err)
		}
		if len(got) > pathMaxBytes || bytes.IndexByte([]byte(got), 0) >= 0 {
			t.Fatalf("interpreter %q: longer than PATH_MAX or holds a NUL", got)
		}
	})
}
