package envprobe

import (
	"debug/elf"
	"path/filepath"
	"strings"
)

// maxMuslRodata bounds the read of musl's .rodata (~200 KB in 1.2.3).
const maxMuslRodata = 8 << 20

// Libc is the C library an ELF executable uses, read from its
// interpreter (PT_INTERP): "glibc 2.36", "musl 1.2.3", "glibc" or "musl"
// when the version cannot be read; "" for a static binary, another
// interpreter, or a file that is not an ELF executable.
func Libc(exe string) string { return LibcIn("/", exe) }

// LibcIn is Libc of exe in the tree at root (a run's own root file
// system, see harness.WithRoot): exe and its interpreter are taken inside
// root, and the host's standard directories are not searched. Symlinks
// are followed as the host sees them: an absolute one leads out of root.
func LibcIn(root, exe string) string {
	key, err := statFile(filepath.Join(root, exe))
	if err != nil || key.notRegular {
		return ""
	}
	if v, ok := libcCache.get(key); ok {
		return v
	}
	v := libcOf(root, exe)
	libcCache.put(key, v)
	return v
}

var libcCache = newStatCache[string]()

func libcOf(root, exe string) string {
	f, err := elf.Open(filepath.Join(root, exe))
	if err != nil {
		return ""
	}
	interp := interpreter(f)
	machine, class := f.Machine, f.Class
	f.Close()
	if interp == "" {
		return ""
	}
	base := filepath.Base(interp)
	interp = filepath.Join(root, interp)
	switch {
	case strings.HasPrefix(base, "ld-musl-"):
		// musl's dynamic linker is its libc.so.
		if v := muslVersion(interp); v != "" {
			return "musl " + v
		}
		return "musl"
	case strings.HasPrefix(base, "ld-linux") || strings.HasPrefix(base, "ld64.so."):
		if v := glibcVersion(interp, machine, class, root == "/"); v != "" {
			return "glibc " + v
		}
		return "glibc"
	}
	return ""
}

// glibcVersion reads the banner of the libc.so.6 that goes with the
// dynamic linker interp: next to it once symlinks are resolved (Debian's
// /lib64/ld-linux-x86-64.so.2 is /usr/lib/x86_64-linux-gnu/...), else in
// the standard directories.
// standard: the host's standard directories too.
func glibcVersion(interp string, machine elf.Machine, class elf.Class, standard bool) string {
	var dirs []string
	if resolved, err := filepath.EvalSymlinks(interp); err == nil {
		dirs = append(dirs, filepath.Dir(resolved))
	}
	dirs = append(dirs, filepath.Dir(interp))
	if standard {
		dirs = append(dirs, standardDirs(machine, class)...)
	}
	for _, d := range dirs {
		p := regularFile(filepath.Join(d, "libc.so.6"))
		if p == "" {
			continue
		}
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		// Only a libc of the same machine: an i386 one sits in /lib too.
		if f.Machine != machine || f.Class != class {
			f.Close()
			continue
		}
		version := ""
		scanData(f, glibcNeedle, 0, 16, func(w []byte, at int) bool {
			v, ok := glibcVersionAt(w, at)
			version = v
			return !ok
		})
		f.Close()
		return version
	}
	return ""
}

func muslVersion(interp string) string {
	p := regularFile(interp)
	if p == "" {
		return ""
	}
	f, err := elf.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	return muslVersionIn(readSection(f, ".rodata", maxMuslRodata))
}
