package netproxy

import (
	"fmt"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFlipAttackNeverReachesTheDeniedHost: a second thread rewrites the
// sockaddr between an allowed and a denied listener while the held
// thread connects 2000 times. The denied listener never gets a
// connection, and every refusal is reported as the denied address.
func TestFlipAttackNeverReachesTheDeniedHost(t *testing.T) {
	asBothCallers(t, flipAttack)
}

func flipAttack(t *testing.T, cred *syscall.Credential) {
	okAddr, _ := tcpEcho(t, "127.0.0.1:0")
	badAddr, reached := silentSocket(t, unix.SOCK_STREAM, "127.0.0.2:0")
	const n = 2000
	r := runChild(t, cred, denyHost("127.0.0.2"), fmt.Sprintf("flip,%s,%s,%d", okAddr, badAddr, n))
	var connected, refused, other int
	if _, err := fmt.Sscanf(r.lines[0], "ok:%d %d %d", &connected, &refused, &other); err != nil {
		t.Fatalf("child said %q", r.lines[0])
	}
	t.Logf("%d connects: connected %d, refused %d, other %d", n, connected, refused, other)
	if reached() {
		t.Error("the denied listener has a connection")
	}
	if other != 0 {
		t.Errorf("%d connects failed otherwise", other)
	}
	var allowed, denied int
	for _, a := range r.accesses {
		switch {
		case a.Denied && a.Dest == inetDest(badAddr):
			denied++
		case !a.Denied && a.Dest == inetDest(okAddr):
			allowed++
		default:
			t.Errorf("unexpected access %+v", a)
		}
	}
	if denied != refused || allowed != connected {
		t.Errorf("reported %d denied, %d allowed; the child saw %d refused, %d connected", denied, allowed, refused, connected)
	}
	if refused == 0 {
		t.Error("the flip never won the read: the test proves nothing")
	}
}
