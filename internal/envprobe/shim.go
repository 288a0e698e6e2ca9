package envprobe

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Shim is a version manager's stand-in for an interpreter that a command
// starts: a small script or a link to the manager's own binary, which
// picks a version from the caller's environment and directory and execs
// the real interpreter. Run under a filter, the shim and the manager's
// scripts would be recorded with the agent.
type Shim struct {
	Manager string // pyenv, rbenv, nodenv, asdf, mise or volta
	Path    string // the shim, as the command found it
	Program string // the name the shim stands for: python3, node
	// Which is the manager's command that prints the program the shim
	// would start ("/root/.pyenv/libexec/pyenv which python3"); Env is
	// what the shim adds to the caller's environment before it
	// (PYENV_ROOT=...).
	Which []string
	Env   []string
	// Root is the manager's root (PYENV_ROOT); "" where the shim names
	// none.
	Root string
}

// The shims of pyenv, rbenv and nodenv (rbenv's design; pyenv rehash
// writes one per program):
//
//	export PYENV_ROOT="/root/.pyenv"
//	exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"
var (
	envShimRoot = regexp.MustCompile(`(?m)^export (PYENV|RBENV|NODENV)_ROOT="([^"\n]+)"$`)
	envShimExec = regexp.MustCompile(`(?m)^exec "([^"\n]*/libexec/(pyenv|rbenv|nodenv))" exec "\$program"`)
	// asdf's shim, bash (0.15) and Go (0.16+) versions:
	//
	//	# asdf-plugin: nodejs 20.11.0
	//	exec /home/u/.asdf/bin/asdf exec "node" "$@" # asdf_allow: ' asdf '
	asdfPlugin = regexp.MustCompile(`(?m)^# asdf-plugin: `)
	asdfExec   = regexp.MustCompile(`(?m)^exec ("?)([^"\s]*asdf)"? exec "([^"\n/]+)" "\$@"`)
)

// FindShim reports whether argv[0], looked up as the launcher will (see
// CommandRuntimes), is a version manager's shim. It reads the file and
// its link target, and runs nothing.
func FindShim(argv []string, env []string, dir string) (Shim, bool) {
	if len(argv) == 0 {
		return Shim{}, false
	}
	c := command{env: env, dir: dir}
	path := c.lookPath(argv[0], c.pathList())
	if path == "" {
		return Shim{}, false
	}
	if s, ok := linkShim(path); ok {
		return s, true
	}
	return scriptShim(path, readHead(path), c)
}

// scriptShim reads a shim script's head.
func scriptShim(path string, head []byte, c command) (Shim, bool) {
	if !strings.HasPrefix(string(head), "#!") {
		return Shim{}, false
	}
	program := filepath.Base(path)
	if m := envShimExec.FindSubmatch(head); m != nil {
		r := envShimRoot.FindSubmatch(head)
		manager := string(m[2])
		if r == nil || !strings.EqualFold(string(r[1]), manager) || !filepath.IsAbs(string(r[2])) || !filepath.IsAbs(string(m[1])) {
			return Shim{}, false
		}
		root := filepath.Clean(string(r[2]))
		return Shim{Manager: manager, Path: path, Program: program, Root: root,
			Which: []string{string(m[1]), "which", program},
			Env:   []string{string(r[1]) + "_ROOT=" + root}}, true
	}
	if asdfPlugin.Match(head) {
		m := asdfExec.FindSubmatch(head)
		if m == nil {
			return Shim{}, false
		}
		bin := string(m[2])
		if !strings.Contains(bin, "/") {
			bin = c.lookPath(bin, c.pathList())
		}
		if bin == "" || !filepath.IsAbs(bin) {
			return Shim{}, false
		}
		return Shim{Manager: "asdf", Path: path, Program: string(m[3]), Which: []string{bin, "which", string(m[3])}}, true
	}
	return Shim{}, false
}

// linkShim reads a shim that is a link to the manager's binary, which
// tells the program by the name it was started as: mise's shims link to
// mise, volta's to volta-shim (whose manager is volta beside it).
func linkShim(path string) (Shim, bool) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return Shim{}, false
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil || !isExecutableFile(target) {
		return Shim{}, false
	}
	program := filepath.Base(path)
	switch filepath.Base(target) {
	case "mise", "rtx":
		if program == "mise" || program == "rtx" {
			return Shim{}, false
		}
		return Shim{Manager: "mise", Path: path, Program: program, Which: []string{target, "which", program}}, true
	case "volta-shim":
		volta := filepath.Join(filepath.Dir(target), "volta")
		if !isExecutableFile(volta) {
			return Shim{}, false
		}
		return Shim{Manager: "volta", Path: path, Program: program, Which: []string{volta, "which", program}}, true
	}
	return Shim{}, false
}

// ExecPath is what the manager's exec puts in front of PATH before it
// starts interpreter: its bin directory, for a version the manager
// installed (under its root); "" for one of the system's, which pyenv,
// rbenv and nodenv leave PATH alone for.
func (s Shim) ExecPath(interpreter string) string {
	bin := filepath.Dir(interpreter)
	switch {
	case s.Root != "" && !strings.HasPrefix(bin, s.Root+"/"):
		return ""
	case bin == "/bin" || bin == "/usr/bin" || bin == "/usr/local/bin" || bin == "/sbin" || bin == "/usr/sbin":
		return ""
	}
	return bin
}
