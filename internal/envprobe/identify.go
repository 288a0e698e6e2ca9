package envprobe

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Runtime identifies an executable as an interpreter or runtime.
type Runtime struct {
	Name    string // "python", "node", "go"
	Version string // "3.11.7", "20.20.2", "1.26.8"
	Path    string // absolute, symlinks resolved
}

type identified struct {
	rt Runtime
	ok bool
}

var identifyCache = newStatCache[identified]()

// Identify tells whether the executable at path (symlinks resolved first)
// is a runtime sysgate knows, without running it: a Go binary (any name),
// python (named python3, python3.11, ...) or node (node, nodejs) whose
// version it finds. Anything else, a file that is not ELF, or one that
// cannot be read is not (false).
// Results are cached per path and the device, inode, size and
// modification time it leads to.
func Identify(path string) (Runtime, bool) { return identifyCached("", path) }

// identifyCached is Identify of path (the host's path of a file inside
// root, or "" for the host's own tree), cached per root.
func identifyCached(root, path string) (Runtime, bool) {
	key, err := statFile(path)
	if err != nil || key.notRegular {
		return Runtime{}, false
	}
	key.root = root
	if v, ok := identifyCache.get(key); ok {
		return v.rt, v.ok
	}
	resolved, err := resolvePath(path)
	if err != nil {
		return Runtime{}, false
	}
	rt, ok, read := identify(resolved, root)
	// A file replaced between the stat and the read (the agent's own
	// files may be) is answered but not cached under the old key.
	if read.sameFile(key) {
		identifyCache.put(key, identified{rt, ok})
	}
	return rt, ok
}

// IdentifyIn is Identify of path inside the tree at root (a run's own
// root file system): the runtime's Path is the one inside root, and the
// libraries it needs (libpython, libnode) are looked for in root's
// directories, not the host's. Symlinks are followed as the host sees
// them (see LibcIn).
func IdentifyIn(root, path string) (Runtime, bool) {
	rt, ok := identifyCached(root, filepath.Join(root, path))
	if !ok {
		return rt, false
	}
	rel, err := filepath.Rel(root, rt.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return Runtime{}, false // led out of root
	}
	rt.Path = "/" + rel
	return rt, true
}

// resolvePath is path absolute with symlinks resolved.
func resolvePath(path string) (string, error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(resolved)
}

// identify reads path, which is resolved and absolute, and says which
// file it read; root ("" for the host's) is the tree whose library
// directories hold the libraries it needs. The files are the agent's (it may have written them):
// debug/elf and debug/buildinfo are hardened, and a panic left in them is
// one more "not a runtime".
func identify(path, root string) (rt Runtime, ok bool, read fileKey) {
	defer func() {
		if recover() != nil {
			rt, ok = Runtime{}, false
		}
	}()
	file, err := os.Open(path)
	if err != nil {
		return Runtime{}, false, read
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return Runtime{}, false, read
	}
	read = keyOf(path, fi)
	if read.notRegular {
		return Runtime{}, false, read
	}
	f, err := elf.NewFile(file)
	if err != nil {
		return Runtime{}, false, read
	}
	if bi, err := buildinfo.Read(file); err == nil {
		return Runtime{Name: "go", Version: goVersion(bi.GoVersion), Path: path}, true, read
	}
	// A name alone is no proof (an agent can copy /bin/sh to ./python3):
	// python and node count once their version is found.
	rt = Runtime{Path: path}
	base := filepath.Base(path)
	if prefix, ok := pythonPrefix(base); ok {
		rt.Name, rt.Version = "python", pythonVersion(f, path, prefix, root)
	} else if base == "node" || base == "nodejs" {
		rt.Name, rt.Version = "node", nodeVersion(f, path, root)
	}
	if rt.Version == "" {
		return Runtime{}, false, read
	}
	return rt, true, read
}

// goVersion is "1.26.8" of "go1.26.8" or "go1.26.8 X:jsonv2"; a
// development toolchain ("devel go1.27-abc ...") is "devel".
func goVersion(v string) string {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return ""
	}
	return strings.TrimPrefix(fields[0], "go")
}

// pythonName matches CPython's executable names, with the ABI flags some
// builds append (python3.6m, python3.13t).
var pythonName = regexp.MustCompile(`^python(?:(\d)(?:\.(\d+))?[dmtu]*)?$`)

// pythonPrefix is what the name says of the version: "3.11." for
// python3.11, "3." for python3, "" for python (then only Py_Version
// tells).
func pythonPrefix(base string) (string, bool) {
	m := pythonName.FindStringSubmatch(base)
	switch {
	case m == nil:
		return "", false
	case m[1] == "":
		return "", true
	case m[2] == "":
		return m[1] + ".", true
	}
	return m[1] + "." + m[2] + ".", true
}

// pythonVersion reads CPython's version: the Py_Version constant of the
// executable or its libpython (3.11+), else the PY_VERSION string.
func pythonVersion(f *elf.File, exe, prefix, root string) string {
	files := []*elf.File{f}
	if lib := openNeeded(f, exe, "libpython", root); lib != nil {
		defer lib.Close()
		files = append(files, lib)
	}
	for _, file := range files {
		if v, ok := pyVersionSymbol(file); ok {
			return v
		}
	}
	for _, file := range files {
		if prefix == "" {
			break
		}
		if v := pyVersionString(file, prefix); v != "" {
			return v
		}
	}
	return ""
}

// openNeeded opens the library whose name starts with prefix that an
// executable links: libpython (pyenv's and most distributions' shared
// builds), libnode (Debian's and Ubuntu's nodejs); nil when it links
// none, a static build.
func openNeeded(f *elf.File, exe, prefix, root string) *elf.File {
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil
	}
	for _, name := range libs {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if p := findLibrary(f, exe, name, root); p != "" {
			if lib, err := elf.Open(p); err == nil {
				return lib
			}
		}
	}
	return nil
}

// pyVersionSymbol decodes Py_Version (const unsigned long PY_VERSION_HEX).
func pyVersionSymbol(f *elf.File) (string, bool) {
	b, ok := symbolValue(f, "Py_Version")
	if !ok {
		return "", false
	}
	var v uint64
	switch len(b) {
	case 8:
		v = f.ByteOrder.Uint64(b)
	case 4:
		v = uint64(f.ByteOrder.Uint32(b))
	default:
		return "", false
	}
	return pythonVersionHex(v)
}

// pyVersionString finds PY_VERSION: a string of its own if there is one,
// else the first tail of a longer string.
func pyVersionString(f *elf.File, prefix string) string {
	best, bestRank := "", 2
	scanData(f, prefix, 1, 16, func(w []byte, at int) bool {
		v, rank, ok := pythonVersionAt(w, at, prefix)
		if ok && rank < bestRank {
			best, bestRank = v, rank
		}
		return bestRank > 0
	})
	return best
}

// nodeVersion reads node's version from its release URL or, failing
// that, its inspector's user agent: in the executable (nodejs.org's
// builds, nodesource's), else in the libnode it links (Debian's and
// Ubuntu's nodejs: a small executable and libnode.so.N).
func nodeVersion(f *elf.File, exe, root string) string {
	if v := nodeVersionIn(f); v != "" {
		return v
	}
	if lib := openNeeded(f, exe, "libnode.so", root); lib != nil {
		defer lib.Close()
		return nodeVersionIn(lib)
	}
	return ""
}

func nodeVersionIn(f *elf.File) string {
	for _, n := range nodeNeedles {
		version := ""
		scanData(f, n.needle, 0, 40, func(w []byte, at int) bool {
			v, ok := nodeVersionAt(w, at, len(n.needle), n.end)
			version = v
			return !ok
		})
		if version != "" {
			return version
		}
	}
	return ""
}
