package envprobe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/sys/unix"
)

// Host is what the machine says about itself.
type Host struct {
	Kernel string // uname release, "6.18.0-1-amd64"
	OS     string // os-release ID and VERSION_ID, "debian 12"; "" without an os-release file
	Libc   string // "glibc 2.36", "musl 1.2.4", "musl"; "" when the system's programs are static
}

// ProbeHost reads the host once per process: uname, os-release and the
// libc of the system's own programs. An error (uname failing, an
// os-release file that exists but cannot be read) comes with what could
// be learnt.
func ProbeHost() (Host, error) { return hostOnce() }

var hostOnce = sync.OnceValues(func() (Host, error) { return probeHost("/") })

// ProbeRoot is ProbeHost of the tree at root (a run's own root file
// system): its os-release and the libc of its programs (see LibcIn), and
// the running kernel. Not cached: a root may be rebuilt.
func ProbeRoot(root string) (Host, error) { return probeHost(root) }

// hostPrograms are dynamic executables every distribution has; the first
// one with an ELF interpreter names the host's libc.
var hostPrograms = []string{"/bin/sh", "/usr/bin/env", "/bin/ls"}

func probeHost(root string) (Host, error) {
	var h Host
	var errs []error
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		errs = append(errs, os.NewSyscallError("uname", err))
	} else {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	// os-release(5): /etc/os-release, else /usr/lib/os-release.
	for _, p := range []string{"etc/os-release", "usr/lib/os-release"} {
		data, err := os.ReadFile(filepath.Join(root, p))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read os-release: %w", err))
			break
		}
		h.OS = OSRelease(data)
		break
	}
	for _, p := range hostPrograms {
		if h.Libc = LibcIn(root, p); h.Libc != "" {
			break
		}
	}
	return h, errors.Join(errs...)
}

// maxOSField bounds an os-release value: IDs and versions are short, and
// the result ends up in a committed baseline.
const maxOSField = 64

// OSRelease is "ID VERSION_ID" of os-release content ("debian 12",
// "ubuntu 24.04", "arch" without VERSION_ID). ID defaults to "linux" as
// os-release(5) says. Values may be quoted as in a shell (single or
// double quotes, backslash escapes outside single quotes); comments and
// malformed lines are skipped. Whitespace and control characters inside
// a value become "_", so the result is one line of two words at most.
func OSRelease(data []byte) string {
	id, version := "linux", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64*1024)
	for sc.Scan() {
		key, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(key, "#") {
			continue
		}
		switch strings.TrimSpace(key) {
		case "ID":
			if v := osValue(value); v != "" {
				id = v
			}
		case "VERSION_ID":
			version = osValue(value)
		}
	}
	if version == "" {
		return id
	}
	return id + " " + version
}

// osValue unquotes a shell-style os-release value and makes it one word.
func osValue(raw string) string {
	raw = strings.TrimSpace(raw)
	var b strings.Builder
	var quote rune
	escaped := false
	for i, r := range raw {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
			continue
		case quote == 0 && (r == '"' || r == '\'') && i == 0:
			quote = r
			continue
		case r == quote:
			quote = 0
			continue
		}
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			r = '_'
		}
		b.WriteRune(r)
		if b.Len() >= maxOSField {
			break
		}
	}
	return strings.Trim(b.String(), "_")
}
