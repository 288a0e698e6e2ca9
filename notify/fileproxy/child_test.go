package fileproxy

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/notifytest"
	"github.com/sysgate/sysgate/internal/scmp"
)

// childArg, as the test binary's first argument, makes it the held
// child: it runs the ops given after it on a thread under a filter that
// makes Syscalls notify (see runChild).
const childArg = "fileproxy-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childArg {
		os.Exit(childMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// childMain installs the filter on its locked main thread, prints the
// listener's number, waits for a line on stdin (the parent serves the
// listener by then), runs each op and prints one line per op.
func childMain(ops []string) int {
	runtime.LockOSThread()
	if err := kernel.SetNoNewPrivs(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fd, err := kernel.InstallKillableListenerFilter(notifytest.Filter(Syscalls(scmp.Native())))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("listener %d\n", fd)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 2
	}
	for _, op := range ops {
		fmt.Println(runOp(strings.Split(op, ":")))
	}
	return 0
}

func res(err error) string {
	if err != nil {
		if e, ok := err.(unix.Errno); ok {
			return "err:" + unix.ErrnoName(e)
		}
		return "err:" + err.Error()
	}
	return "ok:"
}

// readFD reads what fd holds, and closes it.
func readFD(fd int, err error) string {
	if err != nil {
		return res(err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 256)
	n, err := unix.Read(fd, buf)
	if err != nil {
		return res(err)
	}
	return "ok:" + string(buf[:n])
}

func runOp(f []string) string {
	switch f[0] {
	case "cat":
		return readFD(unix.Open(f[1], unix.O_RDONLY|unix.O_CLOEXEC, 0))
	case "catat":
		dfd, err := unix.Open(f[1], unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return res(err)
		}
		defer unix.Close(dfd)
		return readFD(unix.Openat(dfd, f[2], unix.O_RDONLY, 0))
	case "chdir":
		return res(unix.Chdir(f[1]))
	case "umask":
		m, _ := strconv.ParseUint(f[1], 8, 32)
		unix.Umask(int(m))
		return "ok:"
	case "create":
		m, _ := strconv.ParseUint(f[2], 8, 32)
		fd, err := unix.Open(f[1], unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, uint32(m))
		if err != nil {
			return res(err)
		}
		_, err = unix.Write(fd, []byte("made"))
		unix.Close(fd)
		return res(err)
	case "reopenw":
		// O_PATH needs no permission on the file; the reopen for write
		// through the caller's own descriptor must be checked anyway.
		pfd, err := unix.Open(f[1], unix.O_PATH, 0)
		if err != nil {
			return res(err)
		}
		defer unix.Close(pfd)
		fd, err := unix.Open(fmt.Sprintf(f[2], pfd), unix.O_WRONLY|unix.O_TRUNC, 0)
		if err == nil {
			unix.Close(fd)
		}
		return res(err)
	case "open":
		flags, _ := strconv.ParseUint(f[2], 16, 32)
		fd, err := unix.Open(f[1], int(flags), 0o644)
		if err == nil {
			unix.Close(fd)
		}
		return res(err)
	case "openat2":
		// openat2(dirfd of DIR, REL, O_RDONLY, RESOLVE)
		dfd, err := unix.Open(f[1], unix.O_PATH|unix.O_DIRECTORY, 0)
		if err != nil {
			return res(err)
		}
		defer unix.Close(dfd)
		resolve, _ := strconv.ParseUint(f[3], 16, 64)
		return readFD(unix.Openat2(dfd, f[2], &unix.OpenHow{Flags: unix.O_RDONLY, Resolve: resolve}))
	case "tmpfile":
		fd, err := unix.Open(f[1], unix.O_TMPFILE|unix.O_WRONLY, 0o600)
		if err != nil {
			return res(err)
		}
		defer unix.Close(fd)
		_, err = unix.Write(fd, []byte("tmp"))
		return res(err)
	case "flip":
		n, _ := strconv.Atoi(f[3])
		return flip(f[1], f[2], n)
	}
	return pathOp(f)
}

func pathOp(f []string) string {
	switch f[0] {
	case "rename":
		return res(unix.Rename(f[1], f[2]))
	case "unlink":
		return res(unix.Unlink(f[1]))
	case "link":
		return res(unix.Link(f[1], f[2]))
	case "symlink":
		return res(unix.Symlink(f[1], f[2]))
	case "mkdir":
		return res(unix.Mkdir(f[1], 0o777))
	case "chmod":
		return res(unix.Chmod(f[1], 0o600))
	case "truncate":
		return res(unix.Truncate(f[1], 1))
	case "handle":
		_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, f[1], 0)
		return res(err)
	}
	return specialOp(f)
}

func specialOp(f []string) string {
	switch f[0] {
	case "selfstat":
		// /proc/self from the supervisor is the supervisor: the
		// caller must get its own.
		got := readFD(unix.Open("/proc/self/stat", unix.O_RDONLY, 0))
		if strings.HasPrefix(got, "ok:"+strconv.Itoa(unix.Getpid())+" ") {
			return "ok:mine"
		}
		return "err:not mine: " + got
	case "fifo":
		// A FIFO's reader (here) and writer (a shell, which inherits the
		// filter): each open blocks until the other comes, so the proxy
		// must not serve them one after another.
		if err := unix.Mkfifo(f[1], 0o600); err != nil {
			return res(err)
		}
		w := exec.Command("/bin/sh", "-c", "echo through > "+f[1])
		if err := w.Start(); err != nil {
			return res(err)
		}
		got := readFD(unix.Open(f[1], unix.O_RDONLY, 0))
		if err := w.Wait(); err != nil {
			return res(err)
		}
		return strings.TrimSpace(got)
	case "mount":
		// Not a held call: a tmpfs only the caller's mount namespace has.
		return res(unix.Mount("tmpfs", f[1], "tmpfs", 0, "mode=0777"))
	}
	return metaOp(f)
}

// metaOp changes a file's metadata, by name or through a descriptor
// opened read-only.
func metaOp(f []string) string {
	switch f[0] {
	case "setxattr":
		return res(unix.Setxattr(f[1], "user.sysgate", []byte("v"), 0))
	case "removexattr":
		return res(unix.Removexattr(f[1], "user.sysgate"))
	case "utimens":
		return res(unix.UtimesNano(f[1], []unix.Timespec{{Sec: 1}, {Sec: 2}}))
	case "mkfifo":
		return res(unix.Mkfifo(f[1], 0o600))
	}
	fd, err := unix.Open(f[1], unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return res(err)
	}
	defer unix.Close(fd)
	switch f[0] {
	case "fchmod":
		return res(unix.Fchmod(fd, 0o4755))
	case "fchown":
		return res(unix.Fchown(fd, -1, -1))
	case "fsetxattr":
		return res(unix.Fsetxattr(fd, "user.sysgate", []byte("v"), 0))
	case "fremovexattr":
		return res(unix.Fremovexattr(fd, "user.sysgate"))
	case "futimens":
		ts := [2]unix.Timespec{{Sec: 3}, {Sec: 4}}
		_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if errno != 0 {
			return res(errno)
		}
		return res(nil)
	}
	return "err:unknown op " + f[0]
}

// flip opens the path in a buffer n times while another thread keeps
// rewriting the buffer between a and b (same length), and counts what
// the opens read: "ok:<reads of a> <reads of b> <refusals>".
func flip(a, b string, n int) string {
	if len(a) != len(b) {
		return "err:lengths differ"
	}
	buf := make([]byte, len(a)+1)
	copy(buf, a)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			copy(buf, b)
			copy(buf, a)
		}
	}()
	contentA, contentB := readFile(a), readFile(b)
	var gotA, gotB, refused int
	for range n {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(&buf[0])), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0)
		if errno != 0 {
			refused++
			continue
		}
		switch readFD(int(fd), nil) {
		case "ok:" + contentA:
			gotA++
		case "ok:" + contentB:
			gotB++
		}
	}
	stop.Store(true)
	<-done
	runtime.KeepAlive(buf)
	return fmt.Sprintf("ok:%d %d %d", gotA, gotB, refused)
}

// readFile is what the test wrote into the file (its name), known
// without opening it, which would go through the filter.
func readFile(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// atFDCWD is AT_FDCWD as a register argument.
var atFDCWD = func() uintptr { v := unix.AT_FDCWD; return uintptr(v) }()
