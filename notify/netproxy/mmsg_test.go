package netproxy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// datagramSink is a bound UDP socket nobody reads: drain returns the
// payloads queued on it since the last drain, oldest first.
func datagramSink(t *testing.T, addr string) (string, func() []string) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, inet(addr)); err != nil {
		t.Fatal(err)
	}
	sa, _ := unix.Getsockname(fd)
	a := sa.(*unix.SockaddrInet4)
	bound := netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
	return bound, func() []string {
		var got []string
		buf := make([]byte, 2048)
		for {
			n, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
			if err != nil {
				return got
			}
			got = append(got, string(buf[:n]))
		}
	}
}

// sentLine is what the child prints for a sendmmsg that returned
// count, with msg_len written for the first written messages of n.
func sentLine(count, written, n int) string {
	s := fmt.Sprintf("ok:%d", count)
	for i := range n {
		if i < written {
			s += fmt.Sprintf(" %d", len(payloadOf(i)))
		} else {
			s += fmt.Sprintf(" %d", unsetLen)
		}
	}
	return s
}

func payloads(idx ...int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, string(payloadOf(i)))
	}
	return out
}

func sendAccess(addr string, denied bool) Access {
	return Access{Op: "send", Dest: inetDest(addr), Syscall: "sendmmsg", Denied: denied}
}

// TestSendmmsgSendsEveryMessage: each message goes to its own address,
// each is asked about in order, and each msg_len is written back; the
// kernel, asked directly, says and sends the same.
func TestSendmmsgSendsEveryMessage(t *testing.T) {
	asBothCallers(t, sendmmsgEveryMessage)
}

func sendmmsgEveryMessage(t *testing.T, cred *syscall.Credential) {
	a, gotA := datagramSink(t, "127.0.0.1:0")
	b, gotB := datagramSink(t, "127.0.0.1:0")
	op := fmt.Sprintf("mmsg,%s,%s,%s", a, b, a)
	bare := runOp(strings.Split(op, ","))
	if want := sentLine(3, 3, 3); bare != want {
		t.Fatalf("the kernel itself: %q, want %q", bare, want)
	}
	if !slices.Equal(gotA(), payloads(0, 2)) || !slices.Equal(gotB(), payloads(1)) {
		t.Fatal("the kernel itself did not deliver the three messages")
	}
	r := runChild(t, cred, allowAll, op)
	if r.lines[0] != bare {
		t.Errorf("child: %q, the kernel itself: %q", r.lines[0], bare)
	}
	if got := gotA(); !slices.Equal(got, payloads(0, 2)) {
		t.Errorf("%s received %q, want %q", a, got, payloads(0, 2))
	}
	if got := gotB(); !slices.Equal(got, payloads(1)) {
		t.Errorf("%s received %q, want %q", b, got, payloads(1))
	}
	want := []Access{sendAccess(a, false), sendAccess(b, false), sendAccess(a, false)}
	if !slices.Equal(r.accesses, want) {
		t.Errorf("accesses %+v, want %+v", r.accesses, want)
	}
}

// TestSendmmsgConnectedWithoutAddress: glibc's stub resolver sends its
// A and AAAA queries in one sendmmsg on a connected UDP socket, with
// no msg_name; both go to the peer decided at connect, and are not
// asked about again.
func TestSendmmsgConnectedWithoutAddress(t *testing.T) {
	s, got := datagramSink(t, "127.0.0.1:0")
	r := runChild(t, nil, allowAll, "mmsgconn,"+s+",2")
	if want := sentLine(2, 2, 2); r.lines[0] != want {
		t.Fatalf("child: %q, want %q", r.lines[0], want)
	}
	if g := got(); !slices.Equal(g, payloads(0, 1)) {
		t.Errorf("%s received %q, want %q", s, g, payloads(0, 1))
	}
	want := []Access{{Op: "connect", Dest: inetDest(s), Syscall: "connect"}}
	if !slices.Equal(r.accesses, want) {
		t.Errorf("accesses %+v, want %+v", r.accesses, want)
	}
}

// TestSendmmsgStopsAtTheFirstRefusal: a refused message ends the batch
// as a failed sendmsg ends the kernel's: the count of those sent
// before it, or EACCES if none was; nothing after it is sent or asked
// about, and msg_len is written for the sent ones only.
func TestSendmmsgStopsAtTheFirstRefusal(t *testing.T) {
	ok, gotOK := datagramSink(t, "127.0.0.1:0")
	bad, gotBad := datagramSink(t, "127.0.0.2:0")
	r := runChild(t, nil, denyHost("127.0.0.2"),
		fmt.Sprintf("mmsg,%s,%s,%s", ok, bad, ok),
		fmt.Sprintf("mmsg,%s,%s", bad, ok))
	if want := sentLine(1, 1, 3); r.lines[0] != want {
		t.Errorf("second message refused: %q, want %q", r.lines[0], want)
	}
	if want := fmt.Sprintf("err:EACCES %d %d", unsetLen, unsetLen); r.lines[1] != want {
		t.Errorf("first message refused: %q, want %q", r.lines[1], want)
	}
	if g := gotOK(); !slices.Equal(g, payloads(0)) {
		t.Errorf("%s received %q, want only the first call's first message %q", ok, g, payloads(0))
	}
	if g := gotBad(); len(g) != 0 {
		t.Errorf("the refused address received %q", g)
	}
	want := []Access{sendAccess(ok, false), sendAccess(bad, true), sendAccess(bad, true)}
	if !slices.Equal(r.accesses, want) {
		t.Errorf("accesses %+v, want %+v", r.accesses, want)
	}
}

// TestSendmmsgFaultsAsTheKernelDoes: an array whose msg_len cannot be
// written back (a read-only page) and one whose second entry cannot
// be read (PROT_NONE) give the caller what the kernel itself gives,
// and the same datagrams reach the peer.
func TestSendmmsgFaultsAsTheKernelDoes(t *testing.T) {
	s, got := datagramSink(t, "127.0.0.1:0")
	for _, tc := range []struct {
		how, want string
	}{
		// The first message is sent, its msg_len is not written: not
		// counted, and with none counted the call fails.
		{"ro", fmt.Sprintf("err:EFAULT %d %d", unsetLen, unsetLen)},
		// The first is sent and counted; the second is never read.
		{"cut", sentLine(1, 1, 1)},
	} {
		op := strings.Split(fmt.Sprintf("mmsgmap,%s,%s,%s", tc.how, s, s), ",")
		bare := runOp(op)
		bareGot := got()
		if bare != tc.want || !slices.Equal(bareGot, payloads(0)) {
			t.Fatalf("%s: the kernel itself: %q, delivered %q; want %q, %q", tc.how, bare, bareGot, tc.want, payloads(0))
		}
		r := runChild(t, nil, allowAll, strings.Join(op, ","))
		if r.lines[0] != bare {
			t.Errorf("%s: child %q, the kernel itself %q", tc.how, r.lines[0], bare)
		}
		if g := got(); !slices.Equal(g, bareGot) {
			t.Errorf("%s: delivered %q, the kernel itself %q", tc.how, g, bareGot)
		}
	}
}

// TestSendmmsgFlipNeverReachesTheDeniedHost: a second thread rewrites
// the second message's msg_name between an allowed and a denied
// address during 2000 sendmmsg calls. The denied address receives
// nothing; every call that sent one message only is one refusal
// reported as the denied address, and every message sent is an
// allowed access.
func TestSendmmsgFlipNeverReachesTheDeniedHost(t *testing.T) {
	asBothCallers(t, flipMmsgAttack)
}

func flipMmsgAttack(t *testing.T, cred *syscall.Credential) {
	okAddr, _ := datagramSink(t, "127.0.0.1:0")
	badAddr, gotBad := datagramSink(t, "127.0.0.2:0")
	const n = 2000
	r := runChild(t, cred, denyHost("127.0.0.2"), fmt.Sprintf("mmsgflip,%s,%s,%d", okAddr, badAddr, n))
	var both, one, refused, other int
	if _, err := fmt.Sscanf(r.lines[0], "ok:%d %d %d %d", &both, &one, &refused, &other); err != nil {
		t.Fatalf("child said %q", r.lines[0])
	}
	t.Logf("%d calls: both sent %d, first only %d, refused %d, other %d", n, both, one, refused, other)
	if g := gotBad(); len(g) != 0 {
		t.Errorf("the denied address received %d datagrams", len(g))
	}
	if refused != 0 || other != 0 {
		t.Errorf("%d calls refused, %d failed otherwise: the first message is always allowed", refused, other)
	}
	okHost, badHost := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")
	var allowed, denied int
	for _, a := range r.accesses {
		switch {
		case a.Dest.Addr == badHost && a.Denied:
			denied++
		case a.Dest.Addr == okHost && !a.Denied:
			allowed++
		default:
			t.Errorf("unexpected access %+v", a)
		}
	}
	if denied != one || allowed != n+both {
		t.Errorf("reported %d denied, %d allowed; the child sent %d calls of one message, %d of two (want %d denied, %d allowed)",
			denied, allowed, one, both, one, n+both)
	}
	if one == 0 {
		t.Error("the flip never won the read: the test proves nothing")
	}
}
