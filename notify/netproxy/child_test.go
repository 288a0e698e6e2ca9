package netproxy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/notifytest"
	"github.com/sysgate/sysgate/internal/scmp"
)

// childArg, as the test binary's first argument, makes it the held
// child: it runs the ops given after it under a filter that makes
// Syscalls notify (see runChild).
const childArg = "netproxy-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childArg {
		os.Exit(childMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == senderArg {
		os.Exit(senderMain())
	}
	os.Exit(m.Run())
}

// childMain installs the filter on its locked main thread (TSYNC is
// not needed: the ops run on it), prints the listener's number, waits
// for a line on stdin, runs each op and prints one line per op.
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
		fmt.Println(runOp(strings.Split(op, ",")))
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

func inet(s string) *unix.SockaddrInet4 {
	ap := netip.MustParseAddrPort(s)
	return &unix.SockaddrInet4{Addr: ap.Addr().As4(), Port: int(ap.Port())}
}

func runOp(f []string) string {
	switch f[0] {
	case "chdir":
		return res(unix.Chdir(f[1]))
	case "tcp": // connect, send "ping", read the echo
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		defer unix.Close(fd)
		if err := unix.Connect(fd, inet(f[1])); err != nil {
			return res(err)
		}
		return echo(fd)
	case "tcpfrom": // tcpfrom,<bound>,<dest>: bind first, then as tcp
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		defer unix.Close(fd)
		if err := unix.Bind(fd, inet(f[1])); err != nil {
			return res(err)
		}
		if err := unix.Connect(fd, inet(f[2])); err != nil {
			return res(err)
		}
		return echo(fd)
	case "tcp6short": // tcp6short,<[v6]:port>: a 24-byte sockaddr_in6
		return connectShortInet6(f[1])
	case "unix": // the same over a Unix stream socket
		fd, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		defer unix.Close(fd)
		if err := unix.Connect(fd, &unix.SockaddrUnix{Name: f[1]}); err != nil {
			return res(err)
		}
		return echo(fd)
	case "udp": // sendto without connect
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		defer unix.Close(fd)
		return res(unix.Sendto(fd, []byte("ping"), 0, inet(f[1])))
	case "nonblock":
		return nonblockConnect(f[1])
	case "bind":
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		defer unix.Close(fd)
		return res(unix.Bind(fd, inet(f[1])))
	case "listen":
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		defer unix.Close(fd)
		if err := unix.Bind(fd, inet(f[1])); err != nil {
			return res(err)
		}
		return res(unix.Listen(fd, 1))
	case "flip":
		n, _ := strconv.Atoi(f[3])
		return flip(inet(f[1]), inet(f[2]), n)
	case "passfd":
		return passFD(f[1])
	case "bigsend":
		return bigSend()
	case "mmsg": // mmsg,<addr or ->,...: one sendmmsg, a message to each
		return sendmmsgTo(f[1:])
	case "mmsgconn":
		n, _ := strconv.Atoi(f[2])
		return sendmmsgConnected(f[1], n)
	case "mmsgmap": // mmsgmap,<ro|cut>,<addr>,...
		return sendmmsgMapped(f[1], f[2:])
	case "mmsgflip":
		n, _ := strconv.Atoi(f[3])
		return flipMmsg(inet(f[1]), inet(f[2]), n)
	case "stall":
		return stalledSend(f[1])
	case "connectn":
		n, _ := strconv.Atoi(f[2])
		return connectN(inet(f[1]), n)
	}
	return "err:unknown op " + f[0]
}

func echo(fd int) string {
	if _, err := unix.Write(fd, []byte("ping")); err != nil {
		return res(err)
	}
	buf := make([]byte, 16)
	n, err := unix.Read(fd, buf)
	if err != nil {
		return res(err)
	}
	return "ok:" + string(buf[:n])
}

// nonblockConnect expects EINPROGRESS, then waits on its own
// descriptor for the connect the proxy started on the same open file.
func nonblockConnect(addr string) string {
	fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	defer unix.Close(fd)
	err := unix.Connect(fd, inet(addr))
	if err != unix.EINPROGRESS {
		return "err:want EINPROGRESS, got " + res(err)
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	if _, err := unix.Poll(fds, 10_000); err != nil {
		return res(err)
	}
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil || v != 0 {
		return fmt.Sprintf("err:so_error %d %v", v, err)
	}
	// The echo's read waits: the connect is the point, not polling.
	if err := unix.SetNonblock(fd, false); err != nil {
		return res(err)
	}
	return "ok:inprogress " + echo(fd)
}

// rawInet is a sockaddr_in as the kernel reads it.
func rawInet(a *unix.SockaddrInet4) [16]byte {
	var b [16]byte
	binary.NativeEndian.PutUint16(b[:], unix.AF_INET)
	binary.BigEndian.PutUint16(b[2:], uint16(a.Port))
	copy(b[4:], a.Addr[:])
	return b
}

// connectShortInet6 connects to addr with a sockaddr_in6 of
// SIN6_LEN_RFC2133 bytes (no sin6_scope_id), which the kernel takes.
func connectShortInet6(addr string) string {
	ap := netip.MustParseAddrPort(addr)
	var b [24]byte
	binary.NativeEndian.PutUint16(b[:], unix.AF_INET6)
	binary.BigEndian.PutUint16(b[2:], ap.Port())
	a := ap.Addr().As16()
	copy(b[8:], a[:])
	fd, _ := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	defer unix.Close(fd)
	_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	runtime.KeepAlive(&b)
	if errno != 0 {
		return res(errno)
	}
	return echo(fd)
}

// flip connects n times from one buffer that another thread keeps
// rewriting between a and b, and counts: "ok:<connected> <refused>
// <other errors>".
func flip(a, b *unix.SockaddrInet4, n int) string {
	ra, rb := rawInet(a), rawInet(b)
	buf := ra
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			copy(buf[:], rb[:])
			copy(buf[:], ra[:])
		}
	}()
	var ok, refused, other int
	for range n {
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), 16)
		switch errno {
		case 0:
			ok++
		case unix.EACCES:
			refused++
		default:
			other++
		}
		unix.Close(fd)
	}
	stop.Store(true)
	<-done
	runtime.KeepAlive(&buf)
	return fmt.Sprintf("ok:%d %d %d", ok, refused, other)
}

// connectN times n socket+connect+close rounds: "ok:<ns per round>".
func connectN(a *unix.SockaddrInet4, n int) string {
	start := time.Now()
	for range n {
		fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err := unix.Connect(fd, a); err != nil {
			return res(err)
		}
		unix.Close(fd)
	}
	return fmt.Sprintf("ok:%d", time.Since(start).Nanoseconds()/int64(n))
}

// passFD sends "x" to the Unix datagram socket at name with the read
// end of a pipe that holds "fdok" (SCM_RIGHTS).
func passFD(name string) string {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return res(err)
	}
	defer unix.Close(p[0])
	unix.Write(p[1], []byte("fdok"))
	unix.Close(p[1])
	fd, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	defer unix.Close(fd)
	return res(unix.Sendmsg(fd, []byte("x"), unix.UnixRights(p[0]), &unix.SockaddrUnix{Name: name}, 0))
}

// bigSend sends 1 MiB in one sendmsg on a connected stream (a reader
// drains the other end) and reports the count the call returned.
func bigSend() string {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return res(err)
	}
	defer unix.Close(pair[0])
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 64<<10)
		for {
			if n, err := unix.Read(pair[1], buf); n <= 0 || err != nil {
				return
			}
		}
	}()
	n, err := unix.SendmsgN(pair[0], make([]byte, 1<<20), nil, nil, 0)
	unix.Shutdown(pair[0], unix.SHUT_WR)
	<-drained
	unix.Close(pair[1])
	if err != nil {
		return res(err)
	}
	return fmt.Sprintf("ok:%d", n)
}
