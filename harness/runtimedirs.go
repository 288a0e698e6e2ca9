package harness

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
)

var pythonMinor = regexp.MustCompile(`^(\d+\.\d+)`)

// runtimeDirs are the directories a runtime reads its own library from:
// what a files entry's {runtime} stands for, so a baseline recorded with
// pyenv's 3.11.7 reads the same as one recorded with Debian's 3.11.2.
//   - an interpreter in PREFIX/bin of a prefix of its own (pyenv, nvm,
//     asdf, a venv's base): PREFIX;
//   - a system python under /usr: /usr/lib/pythonX.Y, its dist-packages
//     (/usr/lib/python3/dist-packages) and /usr/local/lib/pythonX.Y;
//   - a system node under /usr: /usr/lib/node_modules, /usr/share/nodejs,
//     /usr/lib/nodejs (Debian's module directories) and /usr/local/lib/node_modules.
//
// A Go agent has its runtime compiled in: none.
func runtimeDirs(runtimes []baseline.Runtime) []string {
	var dirs []string
	for _, r := range runtimes {
		if r.Path == "" {
			continue
		}
		bin := filepath.Dir(r.Path)
		prefix := filepath.Dir(bin)
		system := filepath.Base(bin) == "bin" && (prefix == "/usr" || prefix == "/usr/local" || prefix == "/")
		switch {
		case filepath.Base(bin) != "bin":
			continue
		case !system:
			dirs = append(dirs, prefix)
		case r.Name == "python":
			minor := pythonMinor.FindString(r.Version)
			if minor == "" {
				minor = strings.TrimPrefix(filepath.Base(r.Path), "python")
			}
			if minor == "" || minor == "3" {
				continue
			}
			dirs = append(dirs, "/usr/lib/python"+minor, "/usr/lib/python3/dist-packages", "/usr/local/lib/python"+minor)
		case r.Name == "node":
			dirs = append(dirs, "/usr/lib/node_modules", "/usr/share/nodejs", "/usr/lib/nodejs", "/usr/local/lib/node_modules")
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}
