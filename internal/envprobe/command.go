package envprobe

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// defaultPath is the launcher's search path when the command's env has no
// PATH (internal/kernel.DefaultPath; not imported: that package is cgo).
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// maxInterpreterDepth is how many "#!" interpreters Linux follows in a
// row (BINPRM_MAX_RECURSION), plus one env or pyenv shim hop.
const maxInterpreterDepth = 6

// CommandRuntimes predicts, before a run, which runtime the command will
// start: argv[0] looked up like the launcher does (a path with a slash
// as is, else each $PATH entry of env, the last PATH= winning; relative
// ones against dir), then followed through "#!" lines (#!/usr/bin/python3,
// #!/usr/bin/env python3 or env -S, looked up on PATH), env as argv[0],
// and pyenv's shims. It never runs anything, and lists nothing when the
// command is not found or starts no runtime it knows.
func CommandRuntimes(argv []string, env []string, dir string) []Runtime {
	if len(argv) == 0 {
		return nil
	}
	c := command{env: env, dir: dir}
	path := c.lookPath(argv[0], c.pathList())
	if path == "" {
		return nil
	}
	if rt, ok := c.follow(path, argv[1:], 0); ok {
		return []Runtime{rt}
	}
	return nil
}

type command struct {
	env []string
	dir string
}

// getenv is the value of key in the command's env; the last one wins, as
// in os/exec.
func (c command) getenv(key string) (string, bool) {
	value, found := "", false
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			value, found = v, true
		}
	}
	return value, found
}

func (c command) pathList() string {
	if p, ok := c.getenv("PATH"); ok {
		return p
	}
	return defaultPath
}

// abs makes path absolute against the command's directory.
func (c command) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(c.dir, path)
}

// lookPath finds file like execvp: as is with a slash, else the first
// executable regular file along pathList ("" is the directory itself).
func (c command) lookPath(file, pathList string) string {
	if file == "" {
		return ""
	}
	if strings.Contains(file, "/") {
		if p := c.abs(file); isExecutableFile(p) {
			return p
		}
		return ""
	}
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			d = "."
		}
		if p := c.abs(filepath.Join(d, file)); isExecutableFile(p) {
			return p
		}
	}
	return ""
}

// follow identifies path, or the interpreter its "#!" line names; args
// are the arguments after path (for env as the command itself).
func (c command) follow(path string, args []string, depth int) (Runtime, bool) {
	if depth > maxInterpreterDepth {
		return Runtime{}, false
	}
	if rt, ok := Identify(path); ok {
		return rt, true
	}
	if filepath.Base(path) == "env" {
		return c.followEnv(args, depth)
	}
	head := readHead(path)
	if root, ok := pyenvShim(head); ok {
		return c.followPyenv(root, filepath.Base(path), depth)
	}
	interp, arg, ok := shebang(head)
	if !ok {
		return Runtime{}, false
	}
	p := c.abs(interp)
	if !isExecutableFile(p) {
		return Runtime{}, false
	}
	var interpArgs []string
	if arg != "" {
		interpArgs = []string{arg}
	}
	return c.follow(p, interpArgs, depth+1)
}

// followEnv reads env's arguments: options, NAME=VALUE (a PATH= one
// changes the search) and -S's split string, then the program.
func (c command) followEnv(args []string, depth int) (Runtime, bool) {
	pathList := c.pathList()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-S" || a == "--split-string":
			if i+1 < len(args) {
				return c.followEnv(append(strings.Fields(args[i+1]), args[i+2:]...), depth+1)
			}
			return Runtime{}, false
		case strings.HasPrefix(a, "-S"):
			return c.followEnv(append(strings.Fields(a[2:]), args[i+1:]...), depth+1)
		case strings.HasPrefix(a, "--split-string="):
			return c.followEnv(append(strings.Fields(strings.TrimPrefix(a, "--split-string=")), args[i+1:]...), depth+1)
		case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
			i++ // takes a value
		case a == "--":
			if i+1 < len(args) {
				return c.program(args[i+1], pathList, depth)
			}
			return Runtime{}, false
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
			if v, ok := strings.CutPrefix(a, "PATH="); ok {
				pathList = v
			}
		default:
			// A "#!/usr/bin/env python3 -u" line hands env one argument.
			if f := strings.Fields(a); len(f) > 0 {
				return c.program(f[0], pathList, depth)
			}
			return Runtime{}, false
		}
	}
	return Runtime{}, false
}

func (c command) program(name, pathList string, depth int) (Runtime, bool) {
	p := c.lookPath(name, pathList)
	if p == "" {
		return Runtime{}, false
	}
	return c.follow(p, nil, depth+1)
}

// binprmBuf is how much of a script the kernel reads for its "#!" line.
const binprmBuf = 256

// maxShimHead is how much of a script is read to recognise a pyenv shim
// (~400 bytes).
const maxShimHead = 4096

func readHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, maxShimHead)
	n, err := io.ReadFull(f, buf)
	if err != nil && n == 0 {
		return nil
	}
	return buf[:n]
}

// shebang parses a "#!" line as Linux does: the interpreter up to the
// first blank, then at most one argument, the rest of the line trimmed.
func shebang(head []byte) (interp, arg string, ok bool) {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return "", "", false
	}
	line := head[2:min(len(head), binprmBuf)]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	s := strings.Trim(string(line), " \t\r")
	interp = s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		interp, arg = s[:i], strings.Trim(s[i+1:], " \t\r")
	}
	if interp == "" || strings.ContainsRune(interp, 0) || strings.ContainsRune(arg, 0) {
		return "", "", false
	}
	return interp, arg, true
}

// CandidatePaths are the paths an execvp of file would try, in order (the
// launcher's own search: internal/kernel.CandidatePaths).
func CandidatePaths(file string, env []string) []string {
	if strings.Contains(file, "/") {
		return []string{file}
	}
	var out []string
	for _, dir := range filepath.SplitList(command{env: env}.pathList()) {
		if dir == "" {
			dir = "."
		}
		out = append(out, filepath.Join(dir, file))
	}
	return out
}
