package envprobe

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A pyenv shim is a bash script (pyenv rehash writes one per program):
//
//	export PYENV_ROOT="/root/.pyenv"
//	exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"
//
// Following its "#!/usr/bin/env bash" would end at bash; what it starts
// is the python that pyenv's version selection names.
var (
	pyenvRootLine = regexp.MustCompile(`(?m)^export PYENV_ROOT="([^"\n]+)"$`)
	pyenvExecLine = regexp.MustCompile(`(?m)^exec "[^"\n]*/libexec/pyenv" exec "\$program"`)
)

// pyenvShim reports whether a script's head is a pyenv shim, and its
// PYENV_ROOT.
func pyenvShim(head []byte) (root string, ok bool) {
	if !bytes.HasPrefix(head, []byte("#!")) || !pyenvExecLine.Match(head) {
		return "", false
	}
	m := pyenvRootLine.FindSubmatch(head)
	if m == nil || !filepath.IsAbs(string(m[1])) {
		return "", false
	}
	return filepath.Clean(string(m[1])), true
}

// followPyenv resolves program the way pyenv which does: the versions
// from $PYENV_VERSION, a .python-version file from $PYENV_DIR (default:
// the command's directory) upwards, or $PYENV_ROOT/version, then
// "system" (PATH without the shims).
func (c command) followPyenv(root, program string, depth int) (Runtime, bool) {
	for _, v := range append(c.pyenvVersions(root), "system") {
		var p string
		if v == "system" {
			p = c.lookPath(program, withoutDir(c.pathList(), filepath.Join(root, "shims")))
		} else if dir := pyenvVersionDir(root, v); dir != "" {
			if cand := filepath.Join(dir, "bin", program); isExecutableFile(cand) {
				p = cand
			}
		}
		if p != "" {
			return c.follow(p, nil, depth+1)
		}
	}
	return Runtime{}, false
}

func (c command) pyenvVersions(root string) []string {
	if v, _ := c.getenv("PYENV_VERSION"); v != "" {
		return strings.Split(v, ":")
	}
	var starts []string
	if d, _ := c.getenv("PYENV_DIR"); d != "" {
		starts = append(starts, c.abs(d))
	}
	starts = append(starts, c.abs(c.dir))
	for _, start := range starts {
		for d := start; ; d = filepath.Dir(d) {
			if vs, ok := readPyenvVersionFile(filepath.Join(d, ".python-version")); ok {
				return vs
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	if vs, ok := readPyenvVersionFile(filepath.Join(root, "version")); ok {
		return vs
	}
	return nil
}

// readPyenvVersionFile reads the first word of each line, skipping
// comments and (as pyenv does since CVE-2022-35861) words that are paths.
// ok is false when the file is missing or names no version.
func readPyenvVersionFile(path string) ([]string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < 16 {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if v := fields[0]; v != ".." && !strings.Contains(v, "/") {
			out = append(out, v)
		}
	}
	return out, len(out) > 0
}

// pyenvVersionDir is $PYENV_ROOT/versions/<v>, accepting "python-3.12"
// and a prefix such as "3.11" for the latest installed 3.11.x, as pyenv
// does; "" when none is installed.
func pyenvVersionDir(root, v string) string {
	if v == "" || v == ".." || strings.Contains(v, "/") {
		return ""
	}
	versions := filepath.Join(root, "versions")
	for _, name := range []string{v, strings.TrimPrefix(v, "python-")} {
		if fi, err := os.Stat(filepath.Join(versions, name)); err == nil && fi.IsDir() {
			return filepath.Join(versions, name)
		}
	}
	entries, err := os.ReadDir(versions)
	if err != nil {
		return ""
	}
	prefix := strings.TrimPrefix(v, "python-") + "."
	var matches []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && dottedVersion([]byte(e.Name()), 2, 4) == len(e.Name()) {
			matches = append(matches, e.Name())
		}
	}
	if len(matches) == 0 {
		return ""
	}
	return filepath.Join(versions, slices.MaxFunc(matches, compareVersions))
}

// compareVersions orders dotted numeric versions: 3.9.18 < 3.10.13.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// withoutDir removes dir from a PATH list, as pyenv removes its shims
// before looking for the system's program.
func withoutDir(pathList, dir string) string {
	var keep []string
	for _, d := range filepath.SplitList(pathList) {
		if filepath.Clean(d) != dir {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
