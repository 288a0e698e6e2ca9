package netproxy

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unsetLen is what msg_len holds before the call: a message whose
// msg_len still says it was not written back.
const unsetLen = 99999

// payloadOf is message i's payload: lengths differ, so a msg_len
// written to the wrong entry shows.
func payloadOf(i int) []byte {
	return []byte(fmt.Sprintf("m%d%s", i, strings.Repeat("x", i)))
}

// batch is a sendmmsg's arguments in memory the child owns. hdrs may
// be in the Go heap or in a mapping of the op's own.
type batch struct {
	hdrs  []unix.Mmsghdr
	names [][16]byte
	iovs  []unix.Iovec
	bufs  [][]byte
}

// fill sets hdrs[i] to send payloadOf(i) to addrs[i] ("-": no address).
func (b *batch) fill(hdrs []unix.Mmsghdr, addrs []string) {
	b.hdrs = hdrs
	b.names = make([][16]byte, len(addrs))
	b.iovs = make([]unix.Iovec, len(addrs))
	b.bufs = make([][]byte, len(addrs))
	for i, a := range addrs {
		b.bufs[i] = payloadOf(i)
		b.iovs[i] = unix.Iovec{Base: &b.bufs[i][0], Len: uint64(len(b.bufs[i]))}
		h := &hdrs[i]
		*h = unix.Mmsghdr{Len: unsetLen}
		h.Hdr.Iov, h.Hdr.Iovlen = &b.iovs[i], 1
		if a != "-" {
			b.names[i] = rawInet(inet(a))
			h.Hdr.Name, h.Hdr.Namelen = &b.names[i][0], 16
		}
	}
}

// send is one sendmmsg of the first n messages.
func (b *batch) send(fd, n, flags int) (int, unix.Errno) {
	r, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(fd), uintptr(unsafe.Pointer(&b.hdrs[0])), uintptr(n), uintptr(flags), 0, 0)
	runtime.KeepAlive(b)
	return int(r), errno
}

// result prints "ok:<count>" or "err:<ERRNO>", then each msg_len.
func (b *batch) result(n int, errno unix.Errno) string {
	s := "ok:" + strconv.Itoa(n)
	if errno != 0 {
		s = "err:" + unix.ErrnoName(errno)
	}
	for _, h := range b.hdrs {
		s += " " + strconv.Itoa(int(h.Len))
	}
	return s
}

func udpSocket() int {
	fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	return fd
}

// sendmmsgTo sends one message to each of addrs in one sendmmsg from
// an unconnected UDP socket.
func sendmmsgTo(addrs []string) string {
	fd := udpSocket()
	defer unix.Close(fd)
	var b batch
	b.fill(make([]unix.Mmsghdr, len(addrs)), addrs)
	return b.result(b.send(fd, len(addrs), unix.MSG_NOSIGNAL))
}

// sendmmsgConnected connects a UDP socket to addr and sends n messages
// without an address, as glibc's resolver sends its A and AAAA queries.
func sendmmsgConnected(addr string, n int) string {
	fd := udpSocket()
	defer unix.Close(fd)
	if err := unix.Connect(fd, inet(addr)); err != nil {
		return res(err)
	}
	var b batch
	b.fill(make([]unix.Mmsghdr, n), slicesRepeat("-", n))
	return b.result(b.send(fd, n, unix.MSG_NOSIGNAL))
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// sendmmsgMapped sends to addrs with the array at the end of a page of
// its own: "ro" makes that page read-only (msg_len cannot be written
// back), "cut" puts the second message on the next page, unmapped.
func sendmmsgMapped(how string, addrs []string) string {
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return res(err)
	}
	defer unix.Munmap(mem)
	start := page - unix.SizeofMmsghdr
	if how == "ro" {
		start = page - len(addrs)*unix.SizeofMmsghdr
	}
	hdrs := unsafe.Slice((*unix.Mmsghdr)(unsafe.Pointer(&mem[start])), len(addrs))
	fd := udpSocket()
	defer unix.Close(fd)
	var b batch
	if how == "cut" {
		// Only the first entry is readable; the kernel fails on the
		// second after sending the first.
		b.fill(make([]unix.Mmsghdr, len(addrs)), addrs)
		hdrs[0] = b.hdrs[0]
		b.hdrs = hdrs[:1]
		if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
			return res(err)
		}
		return b.result(b.send(fd, len(addrs), 0))
	}
	b.fill(hdrs, addrs)
	if err := unix.Mprotect(mem[:page], unix.PROT_READ); err != nil {
		return res(err)
	}
	return b.result(b.send(fd, len(addrs), 0))
}

// flipMmsg sends n sendmmsg calls of two messages from one UDP socket:
// the first to a, the second to a name another thread keeps rewriting
// between a and b. It counts the calls by result: "ok:<sent both>
// <sent one> <refused> <other>".
func flipMmsg(a, b *unix.SockaddrInet4, n int) string {
	fd := udpSocket()
	defer unix.Close(fd)
	ra, rb := rawInet(a), rawInet(b)
	var bt batch
	bt.fill(make([]unix.Mmsghdr, 2), []string{"-", "-"})
	bt.names[0], bt.names[1] = ra, ra
	for i := range bt.hdrs {
		bt.hdrs[i].Hdr.Name, bt.hdrs[i].Hdr.Namelen = &bt.names[i][0], 16
	}
	flipped := &bt.names[1]
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			copy(flipped[:], rb[:])
			copy(flipped[:], ra[:])
		}
	}()
	var both, one, refused, other int
	for range n {
		bt.hdrs[0].Len, bt.hdrs[1].Len = unsetLen, unsetLen
		k, errno := bt.send(fd, 2, 0)
		switch {
		case errno == unix.EACCES:
			refused++
		case errno != 0:
			other++
		case k == 2:
			both++
		case k == 1 && bt.hdrs[0].Len == uint32(len(bt.bufs[0])):
			one++
		default:
			other++
		}
	}
	stop.Store(true)
	<-done
	return fmt.Sprintf("ok:%d %d %d %d", both, one, refused, other)
}

// senderArg, as the test binary's first argument, makes it send
// maxPayload bytes on descriptor 3 in one sendmsg and exit: started
// by a held child, it holds the same filter.
const senderArg = "netproxy-sender"

func senderMain() int {
	if _, err := unix.SendmsgN(3, make([]byte, maxPayload), nil, nil, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// stalledSend has a process of its own (forked from this filtered
// thread: the same listener) block in a sendmsg to a connected Unix
// stream nobody reads yet, then connects to addr: the connect is
// served only if the blocked send does not hold up the listener. The
// peer is drained after the connect, or after 10 s if it never comes:
// "ok:<connect result> <in time>".
func stalledSend(addr string) string {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return res(err)
	}
	defer unix.Close(pair[1])
	// A send buffer far below the payload: the send must block.
	if err := unix.SetsockoptInt(pair[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		return res(err)
	}
	exe, err := os.Executable()
	if err != nil {
		return res(err)
	}
	sender := exec.Command(exe, senderArg)
	sender.ExtraFiles = []*os.File{os.NewFile(uintptr(pair[0]), "pair")}
	sender.Stderr = os.Stderr
	err = sender.Start()
	unix.Close(pair[0])
	if err != nil {
		return res(err)
	}
	// The send has begun once data arrives, and cannot end before the
	// peer is drained.
	if _, err := unix.Poll([]unix.PollFd{{Fd: int32(pair[1]), Events: unix.POLLIN}}, -1); err != nil {
		return res(err)
	}
	drained := make(chan struct{})
	var late atomic.Bool
	drain := func() {
		defer close(drained)
		buf := make([]byte, 64<<10)
		for {
			if n, err := unix.Read(pair[1], buf); n <= 0 || err != nil {
				return
			}
		}
	}
	timer := time.AfterFunc(10*time.Second, func() { late.Store(true); drain() })
	fd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	defer unix.Close(fd)
	connected := res(unix.Connect(fd, inet(addr)))
	if timer.Stop() {
		go drain()
	}
	if err := sender.Wait(); err != nil {
		return res(err)
	}
	<-drained
	return fmt.Sprintf("ok:%s %t", connected, !late.Load())
}
