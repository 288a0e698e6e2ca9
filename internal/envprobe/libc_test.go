package envprobe

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

func TestLibcHost(t *testing.T) {
	want := getconfLibc(t)
	for _, exe := range []string{"/bin/sh", "/bin/ls", "/usr/bin/env"} {
		if got := Libc(exe); got != want {
			t.Errorf("Libc(%s) = %q, want %q", exe, got, want)
		}
	}
	static := goBinary(t) // CGO_ENABLED=0: no interpreter
	text := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(text, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, exe := range []string{static, text, "/nonexistent/x", t.TempDir()} {
		if got := Libc(exe); got != "" {
			t.Errorf("Libc(%s) = %q, want \"\"", exe, got)
		}
	}
}

// TestLibcFake covers the loaders this machine lacks, with fake ELF files
// laid out as the real ones are (measured on Debian's musl 1.2.3 package:
// ld-musl-x86_64.so.1 -> libc.so, whose .rodata holds "\x001.2.3\x00").
func TestLibcFake(t *testing.T) {
	dir := t.TempDir()
	muslRodata := "musl libc (x86_64)\nVersion %s\nDynamic Program Loader\x00/proc/self/fd/\x001.2.3\x00Unsupported request %d\x00127.0.0.1\x00"
	writeFakeELF(t, filepath.Join(dir, "musl/libc.so"), elf.EM_X86_64, "", fakeSection{".rodata", []byte(muslRodata)})
	if err := os.Symlink("libc.so", filepath.Join(dir, "musl/ld-musl-x86_64.so.1")); err != nil {
		t.Fatal(err)
	}
	writeFakeELF(t, filepath.Join(dir, "musl-nover/ld-musl-x86_64.so.1"), elf.EM_X86_64, "", fakeSection{".rodata", []byte("\x001.2.3\x001.2.4\x00")})
	glibcBanner := "\x00GNU C Library (Fake GLIBC 2.41-1) stable release version 2.41.\nCopyright\x00"
	writeFakeELF(t, filepath.Join(dir, "glibc/libc.so.6"), elf.EM_X86_64, "", fakeSection{".rodata", []byte(glibcBanner)})
	writeFakeELF(t, filepath.Join(dir, "glibc/ld-linux-x86-64.so.2"), elf.EM_X86_64, "")
	writeFakeELF(t, filepath.Join(dir, "glibc-nover/libc.so.6"), elf.EM_X86_64, "", fakeSection{".rodata", []byte("no banner")})
	writeFakeELF(t, filepath.Join(dir, "glibc-nover/ld-linux-x86-64.so.2"), elf.EM_X86_64, "")

	for _, tc := range []struct{ interp, want string }{
		{dir + "/musl/ld-musl-x86_64.so.1", "musl 1.2.3"},
		{dir + "/musl-nover/ld-musl-x86_64.so.1", "musl"}, // two candidates: no guess
		{dir + "/glibc/ld-linux-x86-64.so.2", "glibc 2.41"},
		{dir + "/glibc-nover/ld-linux-x86-64.so.2", "glibc"},
		{"/nonexistent/ld-musl-x86_64.so.1", "musl"},
		{dir + "/other/ld.so", ""},
	} {
		exe := filepath.Join(dir, "exe-"+filepath.Base(filepath.Dir(tc.interp)))
		writeFakeELF(t, exe, elf.EM_X86_64, tc.interp)
		if got := Libc(exe); got != tc.want {
			t.Errorf("Libc with PT_INTERP %s = %q, want %q", tc.interp, got, tc.want)
		}
	}
}
