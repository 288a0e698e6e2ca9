package envprobe

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
)

// dataSections are where string constants and const data live: the only
// parts of a binary scanned for versions.
var dataSections = []string{".rodata", ".data.rel.ro", ".data"}

// scanData calls fn for each match of needle in the data sections of f,
// in the order of dataSections, until fn returns false.
func scanData(f *elf.File, needle string, before, after int, fn func(window []byte, at int) bool) {
	stopped := false
	for _, name := range dataSections {
		s := f.Section(name)
		if s == nil || s.Type != elf.SHT_PROGBITS || stopped {
			continue
		}
		_ = eachMatch(s, int64(s.Size), []byte(needle), before, after, func(w []byte, at int) bool {
			stopped = !fn(w, at)
			return !stopped
		})
	}
}

// readSection reads a section whole when it is at most limit bytes.
func readSection(f *elf.File, name string, limit uint64) []byte {
	s := f.Section(name)
	if s == nil || s.Type != elf.SHT_PROGBITS || s.Size > limit {
		return nil
	}
	data, err := s.Data()
	if err != nil {
		return nil
	}
	return data
}

// symbolValue reads the bytes of a dynamic data symbol (an exported
// constant such as CPython's Py_Version) from the section holding them.
func symbolValue(f *elf.File, name string) ([]byte, bool) {
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil, false
	}
	for _, sym := range syms {
		if sym.Name != name || elf.ST_TYPE(sym.Info) != elf.STT_OBJECT || sym.Size == 0 || sym.Size > 64 {
			continue
		}
		for _, s := range f.Sections {
			if s.Type == elf.SHT_NOBITS || s.Addr == 0 || sym.Value < s.Addr || sym.Value+sym.Size > s.Addr+s.Size {
				continue
			}
			buf := make([]byte, sym.Size)
			if _, err := s.ReadAt(buf, int64(sym.Value-s.Addr)); err != nil {
				return nil, false
			}
			return buf, true
		}
	}
	return nil, false
}

// interpreter is the PT_INTERP path of f, "" for a static binary.
func interpreter(f *elf.File) string {
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP || p.Filesz == 0 || p.Filesz > 4096 {
			continue
		}
		buf := make([]byte, p.Filesz)
		if _, err := p.ReadAt(buf, 0); err != nil {
			return ""
		}
		return strings.TrimRight(string(buf), "\x00")
	}
	return ""
}

// multiarch is Debian's directory name for an ELF machine's libraries.
var multiarch = map[elf.Machine]string{
	elf.EM_X86_64:  "x86_64-linux-gnu",
	elf.EM_AARCH64: "aarch64-linux-gnu",
	elf.EM_386:     "i386-linux-gnu",
	elf.EM_ARM:     "arm-linux-gnueabihf",
	elf.EM_RISCV:   "riscv64-linux-gnu",
	elf.EM_PPC64:   "powerpc64le-linux-gnu",
	elf.EM_S390:    "s390x-linux-gnu",
}

// standardDirs are the dynamic linker's usual directories for f's
// machine (ld.so.cache aside, which is not read).
func standardDirs(machine elf.Machine, class elf.Class) []string {
	var dirs []string
	if t, ok := multiarch[machine]; ok {
		dirs = append(dirs, "/lib/"+t, "/usr/lib/"+t)
	}
	if class == elf.ELFCLASS64 {
		dirs = append(dirs, "/lib64", "/usr/lib64")
	}
	return append(dirs, "/lib", "/usr/lib", "/usr/local/lib")
}

// findLibrary locates a DT_NEEDED library of f (at exe) as the dynamic
// linker would: DT_RPATH when there is no DT_RUNPATH, then DT_RUNPATH,
// with $ORIGIN replaced, then $ORIGIN/../lib (relocatable builds), then
// the standard directories. "" when it is not found. In a tree of its own
// (root, not ""; exe is then inside it) the absolute paths are root's.
func findLibrary(f *elf.File, exe, lib, root string) string {
	inRoot := func(p string) string {
		if root == "" {
			return p
		}
		return filepath.Join(root, p)
	}
	if strings.Contains(lib, "/") {
		return regularFile(inRoot(lib))
	}
	origin := filepath.Dir(exe)
	var dirs []string
	runpath, _ := f.DynString(elf.DT_RUNPATH)
	if len(runpath) == 0 {
		runpath, _ = f.DynString(elf.DT_RPATH)
	}
	for _, list := range runpath {
		for _, entry := range filepath.SplitList(list) {
			d := strings.ReplaceAll(strings.ReplaceAll(entry, "${ORIGIN}", origin), "$ORIGIN", origin)
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			if d == entry { // no $ORIGIN: a path of the tree
				d = inRoot(d)
			}
			dirs = append(dirs, d)
		}
	}
	dirs = append(dirs, filepath.Join(origin, "..", "lib"))
	for _, d := range standardDirs(f.Machine, f.Class) {
		dirs = append(dirs, inRoot(d))
	}
	for _, d := range dirs {
		if p := regularFile(filepath.Join(d, lib)); p != "" {
			return p
		}
	}
	return ""
}

// regularFile is path with symlinks resolved when it is a regular file.
func regularFile(path string) string {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(resolved); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return resolved
}

// isExecutableFile reports whether path is a regular file with an
// execute bit, as the launcher's search requires.
func isExecutableFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
