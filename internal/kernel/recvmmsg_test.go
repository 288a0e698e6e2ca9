package kernel

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRecvmmsgReadsSeveralDatagrams(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	for _, m := range []string{"one", "two", "three"} {
		if _, err := unix.Write(fds[0], []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	bufs := make([][]byte, 4)
	iovs := make([]unix.Iovec, 4)
	hdrs := make([]unix.Mmsghdr, 4)
	for i := range hdrs {
		bufs[i] = make([]byte, 16)
		iovs[i].Base = &bufs[i][0]
		iovs[i].SetLen(16)
		hdrs[i].Hdr.Iov = &iovs[i]
		hdrs[i].Hdr.SetIovlen(1)
	}
	n, err := Recvmmsg(fds[1], hdrs, unix.MSG_DONTWAIT)
	if err != nil || n != 3 {
		t.Fatalf("got %d datagrams, %v; want 3", n, err)
	}
	for i, want := range []string{"one", "two", "three"} {
		if got := string(bufs[i][:hdrs[i].Len]); got != want {
			t.Errorf("datagram %d: %q, want %q", i, got, want)
		}
	}
	if _, err := Recvmmsg(fds[1], hdrs, unix.MSG_DONTWAIT); !errors.Is(err, unix.EAGAIN) {
		t.Errorf("empty socket: %v, want EAGAIN", err)
	}
}
