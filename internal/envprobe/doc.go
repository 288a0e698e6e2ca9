// Package envprobe tells what a machine and an agent's programs are,
// without running anything: the kernel release, the distribution
// (/etc/os-release), the C library, and which interpreter or runtime an
// executable is (python, node, a Go binary) and its version. sysgate
// records these next to a baseline so that a report can say "glibc 2.36 →
// 2.39, python 3.11.7 → 3.12.3" when a runner image changes what a
// well-behaved agent calls.
//
// What it needs: read access to the files it looks at, nothing more. It
// takes no privileges, runs no program and reads only ELF headers, the
// dynamic section and symbols, and the read-only data sections (.rodata,
// .data.rel.ro, .data) of an executable and the libraries it names, plus
// a few lines of a script's first bytes. uname(2) is its one system call
// beyond file access. It is a low floor: the harness turns its results
// into baseline.Environment.
//
// How versions are found (each measured on real binaries, see the tests):
//
//   - python (named python, python3, python3.11, python3.6m once symlinks
//     are resolved): the Py_Version constant (PY_VERSION_HEX, CPython
//     3.11+) among the dynamic symbols of the executable or of the
//     libpython it needs (DT_NEEDED, searched along DT_RPATH/DT_RUNPATH
//     with $ORIGIN, $ORIGIN/../lib and the standard and multiarch
//     directories); for older ones the PY_VERSION string "X.Y.Z" with the
//     X.Y the name gives, which the linker may have merged into the tail
//     of a longer string (pyenv's "/root/.pyenv/versions/3.10.13").
//   - node (node, nodejs): "nodejs.org/download/release/vX.Y.Z/" or the
//     inspector's "node.js/vX.Y.Z" in .rodata, of the executable or of
//     the libnode.so.N it needs (Debian's and Ubuntu's nodejs), found as
//     libpython is.
//
// In a tree of its own (IdentifyIn: a run's root file system) those
// libraries are looked for in the tree's directories, not the host's.
//   - go: any Go binary (debug/buildinfo), whatever its name; the
//     toolchain version without "go".
//   - libc: the ELF interpreter (PT_INTERP): ld-linux-* is glibc, whose
//     libc.so.6 next to the resolved interpreter (or in the standard
//     directories) says "release version X.Y"; ld-musl-* is musl with the
//     one "X.Y.Z" string its .rodata holds; no interpreter is a static
//     binary and no libc ("").
//
// CommandRuntimes predicts, before a run, what a command line will start:
// argv[0] on the command's PATH like the launcher's execvp, a script's
// "#!" line (through env, with -S and NAME=VALUE), and pyenv's shims
// (PYENV_VERSION, .python-version, $PYENV_ROOT/version, "system").
//
// Package runenv turns what it reads into the environment a baseline
// fingerprints and picks its layers by.
//
// Limits: a runtime it cannot identify is simply not listed, and that
// includes a python or node whose version is not found (a name alone is
// no proof: an agent can copy /bin/sh to ./python3). The versions are read from strings a build happens to contain: best effort,
// not proof (a patched or unusual build may carry none, or a misleading
// one). Identify's cache is keyed by the executable itself (path, inode,
// size, modification time): a libpython replaced in place under an
// unchanged executable keeps the old answer until the process ends.
package envprobe
