package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

func TestCallerProcPath(t *testing.T) {
	cases := []struct {
		name, want string
		ok         bool
	}{
		{"/proc/self/fd/100", "/proc/7/fd/100", true},
		{"//proc/./self/fd/100", "/proc/7/fd/100", true},
		{"/proc/thread-self/fd/3", "/proc/7/task/9/fd/3", true},
		{"/dev/fd/100", "/proc/7/fd/100", true},
		{"/dev/stdin", "/proc/7/fd/0", true},
		{"/proc/self/cwd/../x", "/proc/7/cwd/../x", true},
		{"/proc/self", "/proc/7", true},
		{"/proc/selfish/x", "", false},
		{"/proc/1/exe", "", false},
		{"/usr/bin/true", "", false},
		{"proc/self/fd/3", "", false},
	}
	for _, c := range cases {
		got, ok := CallerProcPath(9, 7, c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("CallerProcPath(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestSplitMagic(t *testing.T) {
	cases := map[string][2]string{
		"/proc/7/root/usr/bin/true": {"/proc/7/root", "usr/bin/true"},
		"/proc/7/cwd/./x":           {"/proc/7/cwd", "./x"},
		"/proc/7/fd/3/x":            {"/proc/7/fd/3", "x"},
		"/proc/7/task/9/fd/100":     {"/proc/7/task/9/fd/100", ""},
		"/proc/7/map_files/1-2":     {"/proc/7/map_files/1-2", ""},
		"/usr/bin/true":             {"/", "usr/bin/true"},
		"/proc/self/fd/3":           {"/", "proc/self/fd/3"},
		"/proc/7/status":            {"/proc/7", "status"},
	}
	for target, want := range cases {
		if b, r := splitMagic(target); b != want[0] || r != want[1] {
			t.Errorf("splitMagic(%q) = %q, %q; want %q, %q", target, b, r, want[0], want[1])
		}
	}
}

// A symlink that leads into /proc/self names sysgate's descriptor from
// here (or none): ResolveExecFile refuses it rather than name sysgate's
// file or report a missing one, whether the descriptor exists here or not.
func TestResolveExecFileRefusesSymlinkIntoProc(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, target := range map[string]string{
		"here":     "/proc/self/fd/" + strconv.Itoa(int(f.Fd())),
		"missing":  "/proc/self/fd/999",
		"devfd":    "/dev/fd/999",
		"relative": "../" + filepath.Base(dir) + "/here",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	me := strconv.Itoa(os.Getpid())
	for _, name := range []string{"here", "missing", "devfd", "relative"} {
		_, err := ResolveExecFile("/proc/" + me + "/root" + filepath.Join(dir, name))
		if !errors.Is(err, ErrMagicLink) {
			t.Errorf("%s: err = %v, want ErrMagicLink", name, err)
		}
	}
	// The caller's own descriptor, named directly, resolves.
	file, err := ResolveExecFile(ExecTarget(os.Getpid(), os.Getpid(), unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), false))
	if err != nil || !file.Regular {
		t.Errorf("the caller's descriptor: %+v, %v", file, err)
	}
}
